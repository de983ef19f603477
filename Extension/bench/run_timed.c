/*
** run_timed — run one command as a child process and print what the kernel counted for
** it: "WALL CPU PEAK" (seconds from start to exit, user + system seconds of all its
** threads, peak resident set in KiB), for the ingest benchmarks (ingest-cases.sh).
**
**   run_timed LOG 'COMMAND'      runs sh -c 'exec COMMAND', its output into LOG
**
** A small C program rather than a script: a child's peak RSS counts the memory of the
** process it was forked from until its exec, so the launcher has to be small (GNU time
** would do, but rounds times to 10 ms).
*/
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv){
  struct timespec t0, t1;
  struct rusage ru;
  int status;
  pid_t pid;
  if( argc!=3 ){ fprintf(stderr, "usage: run_timed LOG 'COMMAND'\n"); return 2; }
  clock_gettime(CLOCK_MONOTONIC, &t0);
  pid = fork();
  if( pid==0 ){
    char cmd[8192];
    int fd = open(argv[1], O_WRONLY|O_CREAT|O_TRUNC, 0644);
    if( fd<0 ){ perror(argv[1]); _exit(127); }
    dup2(fd, 1); dup2(fd, 2); close(fd);
    snprintf(cmd, sizeof cmd, "exec %s", argv[2]);
    execl("/bin/sh", "sh", "-c", cmd, (char*)0);
    _exit(127);
  }
  if( pid<0 || wait4(pid, &status, 0, &ru)<0 ){ perror("run_timed"); return 1; }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  printf("%.4f %.4f %ld\n", (double)(t1.tv_sec-t0.tv_sec) + (t1.tv_nsec-t0.tv_nsec)/1e9,
         (double)(ru.ru_utime.tv_sec+ru.ru_stime.tv_sec) + (ru.ru_utime.tv_usec+ru.ru_stime.tv_usec)/1e6,
         ru.ru_maxrss);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
