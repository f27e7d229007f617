// PeakMemory: runs a command and prints its exit status, peak resident memory and CPU time as JSON.
//
// Peak RSS must be read by a small parent: Linux carries the parent's resident set into a forked
// child's high-water mark (fork copies the page tables; vfork/posix_spawn share the parent's memory
// until exec), so a child spawned straight from a 40 MiB benchmark process reports at least 40 MiB.
// This program is a few hundred KiB, so what wait4 reports is the command's own peak.
//
//   PeakMemory [-q] RESULT_FILE COMMAND [ARGS...]
//
// The JSON goes to RESULT_FILE; the command keeps this program's stdout and stderr, or with -q
// writes them to /dev/null.
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
    int first = 1, quiet = 0;
    if (argc > 1 && strcmp(argv[1], "-q") == 0) {
        quiet = 1;
        first = 2;
    }
    if (argc < first + 2) {
        fprintf(stderr, "usage: PeakMemory [-q] RESULT_FILE COMMAND [ARGS...]\n");
        return 2;
    }
    const char *resultPath = argv[first];
    char **command = argv + first + 1;
    pid_t child = fork();
    if (child < 0) {
        perror("PeakMemory: fork");
        return 1;
    }
    if (child == 0) {
        int null = quiet ? open("/dev/null", O_WRONLY) : -1;
        if (null >= 0) {
            dup2(null, STDOUT_FILENO);
            dup2(null, STDERR_FILENO);
        }
        execv(command[0], command);
        _exit(127);
    }
    int status = 0;
    struct rusage usage;
    if (wait4(child, &status, 0, &usage) < 0) {
        perror("PeakMemory: wait4");
        return 1;
    }
    FILE *result = fopen(resultPath, "w");
    if (result == NULL) {
        perror(resultPath);
        return 1;
    }
    fprintf(result, "{\"status\":%d,\"maxRSSBytes\":%ld,\"userSeconds\":%.6f,\"systemSeconds\":%.6f}\n",
           WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), usage.ru_maxrss * 1024L,
           usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6, usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6);
    fclose(result);
    return 0;
}
