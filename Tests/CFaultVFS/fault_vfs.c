/*
** fault_vfs.c — the failing VFS of the fault tests (fault_vfs.h, the manual).
*/
#include "fault_vfs.h"

#include <sqlite3.h>
#include <string.h>

void sq_fault_arm(sq_fault_countdown *c, long long n, int persist){
  __atomic_store_n(&c->armed, 0, __ATOMIC_RELEASE);
  __atomic_store_n(&c->hits, 0, __ATOMIC_RELEASE);
  c->persist = persist;
  __atomic_store_n(&c->left, n, __ATOMIC_RELEASE);
  __atomic_store_n(&c->armed, n>0, __ATOMIC_RELEASE);
}

long long sq_fault_disarm(sq_fault_countdown *c){
  __atomic_store_n(&c->armed, 0, __ATOMIC_RELEASE);
  return __atomic_load_n(&c->hits, __ATOMIC_ACQUIRE);
}

int sq_fault_now(sq_fault_countdown *c){
  long long left;
  if( !__atomic_load_n(&c->armed, __ATOMIC_ACQUIRE) ) return 0;
  left = __atomic_sub_fetch(&c->left, 1, __ATOMIC_ACQ_REL);
  if( left==0 || (left<0 && c->persist) ){
    __atomic_add_fetch(&c->hits, 1, __ATOMIC_ACQ_REL);
    return 1;
  }
  return 0;
}

/* The VFS's countdown. */
static sq_fault_countdown io;

void sq_fault_vfs_arm(long long n, int persist){ sq_fault_arm(&io, n, persist); }
long long sq_fault_vfs_disarm(void){ return sq_fault_disarm(&io); }


typedef struct FaultFile {
  sqlite3_file base;
  sqlite3_file *real;           /* the default VFS's file, right after this */
} FaultFile;

static sqlite3_vfs *real_vfs;
static sqlite3_vfs fault_vfs;

#define REAL(f) (((FaultFile*)(f))->real)

static int ff_close(sqlite3_file *f){ return REAL(f)->pMethods->xClose(REAL(f)); }
static int ff_read(sqlite3_file *f, void *b, int n, sqlite3_int64 off){
  return sq_fault_now(&io) ? SQLITE_IOERR_READ : REAL(f)->pMethods->xRead(REAL(f), b, n, off);
}
static int ff_write(sqlite3_file *f, const void *b, int n, sqlite3_int64 off){
  return sq_fault_now(&io) ? SQLITE_FULL : REAL(f)->pMethods->xWrite(REAL(f), b, n, off);
}
static int ff_truncate(sqlite3_file *f, sqlite3_int64 size){
  return sq_fault_now(&io) ? SQLITE_IOERR_TRUNCATE : REAL(f)->pMethods->xTruncate(REAL(f), size);
}
static int ff_sync(sqlite3_file *f, int flags){
  return sq_fault_now(&io) ? SQLITE_IOERR_FSYNC : REAL(f)->pMethods->xSync(REAL(f), flags);
}
static int ff_size(sqlite3_file *f, sqlite3_int64 *size){ return REAL(f)->pMethods->xFileSize(REAL(f), size); }
static int ff_lock(sqlite3_file *f, int l){ return REAL(f)->pMethods->xLock(REAL(f), l); }
static int ff_unlock(sqlite3_file *f, int l){ return REAL(f)->pMethods->xUnlock(REAL(f), l); }
static int ff_reserved(sqlite3_file *f, int *out){ return REAL(f)->pMethods->xCheckReservedLock(REAL(f), out); }
static int ff_control(sqlite3_file *f, int op, void *arg){ return REAL(f)->pMethods->xFileControl(REAL(f), op, arg); }
static int ff_sector(sqlite3_file *f){ return REAL(f)->pMethods->xSectorSize(REAL(f)); }
static int ff_device(sqlite3_file *f){ return REAL(f)->pMethods->xDeviceCharacteristics(REAL(f)); }

/* WAL's shared memory, passed through (no faults: SQLite's own tests fail it apart). */
static int ff_shm_map(sqlite3_file *f, int pg, int sz, int extend, void volatile **pp){
  return REAL(f)->pMethods->xShmMap(REAL(f), pg, sz, extend, pp);
}
static int ff_shm_lock(sqlite3_file *f, int offset, int n, int flags){
  return REAL(f)->pMethods->xShmLock(REAL(f), offset, n, flags);
}
static void ff_shm_barrier(sqlite3_file *f){ REAL(f)->pMethods->xShmBarrier(REAL(f)); }
static int ff_shm_unmap(sqlite3_file *f, int del){ return REAL(f)->pMethods->xShmUnmap(REAL(f), del); }

static const sqlite3_io_methods ff_methods = {
  .iVersion = 2, .xShmMap = ff_shm_map, .xShmLock = ff_shm_lock, .xShmBarrier = ff_shm_barrier,
  .xShmUnmap = ff_shm_unmap, .xClose = ff_close, .xRead = ff_read, .xWrite = ff_write, .xTruncate = ff_truncate,
  .xSync = ff_sync, .xFileSize = ff_size, .xLock = ff_lock, .xUnlock = ff_unlock,
  .xCheckReservedLock = ff_reserved, .xFileControl = ff_control, .xSectorSize = ff_sector,
  .xDeviceCharacteristics = ff_device,
};

static int fv_open(sqlite3_vfs *v, const char *name, sqlite3_file *f, int flags, int *out){
  FaultFile *p = (FaultFile*)f;
  int rc;
  (void)v;
  p->real = (sqlite3_file*)&p[1];
  rc = real_vfs->xOpen(real_vfs, name, p->real, flags, out);
  p->base.pMethods = rc==SQLITE_OK && p->real->pMethods ? &ff_methods : 0;
  return rc;
}
static int fv_delete(sqlite3_vfs *v, const char *name, int sync){ (void)v; return real_vfs->xDelete(real_vfs, name, sync); }
static int fv_access(sqlite3_vfs *v, const char *name, int flags, int *out){
  (void)v; return real_vfs->xAccess(real_vfs, name, flags, out);
}
static int fv_full(sqlite3_vfs *v, const char *name, int n, char *out){
  (void)v; return real_vfs->xFullPathname(real_vfs, name, n, out);
}
static int fv_random(sqlite3_vfs *v, int n, char *out){ (void)v; return real_vfs->xRandomness(real_vfs, n, out); }
static int fv_sleep(sqlite3_vfs *v, int us){ (void)v; return real_vfs->xSleep(real_vfs, us); }
static int fv_time(sqlite3_vfs *v, double *t){ (void)v; return real_vfs->xCurrentTime(real_vfs, t); }
static int fv_lasterr(sqlite3_vfs *v, int n, char *out){ (void)v; return real_vfs->xGetLastError(real_vfs, n, out); }
static int fv_time64(sqlite3_vfs *v, sqlite3_int64 *t){ (void)v; return real_vfs->xCurrentTimeInt64(real_vfs, t); }

int sq_fault_vfs_register(void){
  if( fault_vfs.zName ) return SQLITE_OK;
  real_vfs = sqlite3_vfs_find(0);
  memset(&fault_vfs, 0, sizeof fault_vfs);
  fault_vfs.iVersion = 2;
  fault_vfs.szOsFile = (int)sizeof(FaultFile) + real_vfs->szOsFile;
  fault_vfs.mxPathname = real_vfs->mxPathname;
  fault_vfs.zName = "faulty";
  fault_vfs.xOpen = fv_open;
  fault_vfs.xDelete = fv_delete;
  fault_vfs.xAccess = fv_access;
  fault_vfs.xFullPathname = fv_full;
  fault_vfs.xRandomness = fv_random;
  fault_vfs.xSleep = fv_sleep;
  fault_vfs.xCurrentTime = fv_time;
  fault_vfs.xGetLastError = fv_lasterr;
  fault_vfs.xCurrentTimeInt64 = fv_time64;
  return sqlite3_vfs_register(&fault_vfs, 0);
}
