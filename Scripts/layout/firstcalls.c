// firstcalls SYMBOLS OUT PROGRAM [ARGS...]: runs PROGRAM under ptrace with a
// one-shot breakpoint (int3) on the entry of every function listed in
// SYMBOLS ("hex-offset name" lines, offsets from the executable's load
// address, as `nm` prints them for a PIE) and appends each function's name
// to OUT the first time it runs, in that order. The program runs normally
// otherwise; tracing ends when it exits.
//
// A measuring tool for Scripts/layout/order, not part of reachd: it finds
// the code reachd actually runs, so the release link can place it together.
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

struct site { uint64_t address; char *name; unsigned char original; int armed; };
static struct site *sites;
static size_t count, capacity;

static int by_address(const void *a, const void *b) {
    uint64_t x = ((const struct site *)a)->address, y = ((const struct site *)b)->address;
    return x < y ? -1 : x > y;
}

static struct site *find(uint64_t address) {
    size_t low = 0, high = count;
    while (low < high) {
        size_t middle = (low + high) / 2;
        if (sites[middle].address < address) low = middle + 1; else high = middle;
    }
    return low < count && sites[low].address == address ? &sites[low] : NULL;
}

static uint64_t load_address(pid_t pid, const char *program) {
    char path[64], line[4096], resolved[4096];
    if (!realpath(program, resolved)) { perror(program); exit(1); }
    snprintf(path, sizeof path, "/proc/%d/maps", pid);
    FILE *maps = fopen(path, "r");
    while (maps && fgets(line, sizeof line, maps)) {
        unsigned long start, offset;
        char file[4096] = "";
        if (sscanf(line, "%lx-%*x %*s %lx %*s %*s %4095s", &start, &offset, file) == 3
            && offset == 0 && strcmp(file, resolved) == 0) { fclose(maps); return start; }
    }
    fprintf(stderr, "firstcalls: %s is not mapped in %d\n", resolved, pid);
    exit(1);
}

static void arm(pid_t pid, uint64_t base) {
    for (size_t i = 0; i < count; i++) {
        uint64_t at = base + sites[i].address;
        errno = 0;
        long word = ptrace(PTRACE_PEEKTEXT, pid, (void *)at, NULL);
        if (errno) continue;
        sites[i].original = (unsigned char)(word & 0xff);
        ptrace(PTRACE_POKETEXT, pid, (void *)at, (void *)((word & ~0xffL) | 0xcc));
        sites[i].armed = 1;
        sites[i].address = at;
    }
}

int main(int argc, char **argv) {
    if (argc < 4) { fprintf(stderr, "usage: firstcalls SYMBOLS OUT PROGRAM [ARGS...]\n"); return 2; }
    FILE *list = fopen(argv[1], "r");
    if (!list) { perror(argv[1]); return 1; }
    char line[8192];
    while (fgets(line, sizeof line, list)) {
        char name[8192];
        unsigned long offset;
        if (sscanf(line, "%lx %8191s", &offset, name) != 2) continue;
        if (count == capacity) sites = realloc(sites, (capacity = capacity ? capacity * 2 : 4096) * sizeof *sites);
        sites[count++] = (struct site){ offset, strdup(name), 0, 0 };
    }
    fclose(list);
    qsort(sites, count, sizeof *sites, by_address);
    FILE *out = fopen(argv[2], "w");
    if (!out) { perror(argv[2]); return 1; }

    pid_t child = fork();
    if (child == 0) {
        ptrace(PTRACE_TRACEME, 0, NULL, NULL);
        raise(SIGSTOP);
        execv(argv[3], argv + 3);
        perror(argv[3]);
        _exit(127);
    }
    int status;
    waitpid(child, &status, 0);
    ptrace(PTRACE_SETOPTIONS, child, NULL, (void *)(PTRACE_O_EXITKILL | PTRACE_O_TRACEEXEC | PTRACE_O_TRACECLONE));
    ptrace(PTRACE_CONT, child, NULL, NULL);
    int armed = 0;
    for (;;) {
        pid_t pid = waitpid(-1, &status, __WALL);
        if (pid < 0) break;
        if (WIFEXITED(status) || WIFSIGNALED(status)) {
            if (pid == child) break;
            continue;
        }
        int signal = WSTOPSIG(status), deliver = 0;
        if (signal == SIGTRAP && (status >> 16) == PTRACE_EVENT_EXEC && !armed) {
            uint64_t base = load_address(child, argv[3]);
            arm(child, base);
            armed = 1;
        } else if (signal == SIGTRAP && (status >> 16) == 0) {
            struct user_regs_struct registers;
            ptrace(PTRACE_GETREGS, pid, NULL, &registers);
            struct site *site = find(registers.rip - 1);
            if (site) {
                if (site->armed) {
                    errno = 0;
                    long word = ptrace(PTRACE_PEEKTEXT, pid, (void *)site->address, NULL);
                    ptrace(PTRACE_POKETEXT, pid, (void *)site->address, (void *)((word & ~0xffL) | site->original));
                    site->armed = 0;
                    fprintf(out, "%s\n", site->name);
                    fflush(out);
                }
                registers.rip -= 1;  // another thread may have hit it before the restore: rerun it too
                ptrace(PTRACE_SETREGS, pid, NULL, &registers);
            } else {
                deliver = SIGTRAP;
            }
        } else if (signal != SIGTRAP && signal != SIGSTOP) {
            deliver = signal;
        }
        ptrace(PTRACE_CONT, pid, NULL, (void *)(long)deliver);
    }
    fclose(out);
    return 0;
}
