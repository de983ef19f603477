/*
** fault_vfs.h — "faulty", a VFS for the fault tests: the process's default
** VFS, with xRead, xWrite, xSync and xTruncate failing on a countdown
** (SQLITE_IOERR_READ, SQLITE_FULL, SQLITE_IOERR_FSYNC, SQLITE_IOERR_TRUNCATE),
** as SQLite's own test_vfs.c fails them.  Used by Extension/test/test_faults.c
** and the Swift fault tests (Tests/StreamQLiteTests/IOFaultTests.swift).
**
**   sq_fault_vfs_register();            once: the VFS named "faulty" (not the default)
**   sqlite3_open_v2(path, &db, flags, "faulty");     or the URI file:PATH?vfs=faulty
**   sq_fault_vfs_arm(n, persist);       the nth of those calls from now fails
**                                       (persist: and every one after it)
**   … the workload …
**   hits = sq_fault_vfs_disarm();       the failures injected since sq_fault_vfs_arm
**
** Files get the version 2 methods (WAL's shared memory passed through, no
** memory-mapped reads: every read is an xRead).  The countdown is one for the
** process (atomic): one armed workload at a time.
*/
#ifndef FAULT_VFS_H
#define FAULT_VFS_H

int sq_fault_vfs_register(void);
void sq_fault_vfs_arm(long long n, int persist);
long long sq_fault_vfs_disarm(void);

/* The countdown itself, for other kinds of faults (test_faults.c's failing
** allocator has one of its own): sq_fault_now() says whether this call is the
** one to fail (the nth since sq_fault_arm, or any after it when persistent);
** atomic, so calls from several threads count once each. */
typedef struct sq_fault_countdown {
  int armed;
  long long left;
  int persist;
  long long hits;
} sq_fault_countdown;
void sq_fault_arm(sq_fault_countdown *c, long long n, int persist);
long long sq_fault_disarm(sq_fault_countdown *c);
int sq_fault_now(sq_fault_countdown *c);

#endif
