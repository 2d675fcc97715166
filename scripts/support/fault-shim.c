/* A preloadable library that makes chosen file-system calls fail, or ends the process at a
 * named point, for the process tests of a disk that fails during a refresh
 * (Tests/VersolaCommandTests/DiskFaultMatrixScenarios.swift). Everything is read from the
 * environment, so a process and every process it starts (the agent, its refresh process)
 * behave alike:
 *
 *   VERSOLA_FAULT_UNDER   only paths under this directory are touched
 *   VERSOLA_FAULT_NAME    ... and only those whose last component contains this text
 *   VERSOLA_FAULT_CALLS   the calls that fail, any of: write open rename link unlink fsync
 *                         (open: opened for writing or created)
 *   VERSOLA_FAULT_ERRNO   the error they fail with: ENOSPC, EIO, EDQUOT, EROFS, EXDEV or a number
 *   VERSOLA_FAULT_SWITCH  a file: the calls fail only while it exists (the test arms and
 *                         lifts the fault by creating and removing it)
 *   VERSOLA_FAULT_LOG     a file each failed call is noted in ("write 28 session.tmp-..."), so a
 *                         test can tell that its fault struck
 *   VERSOLA_FAULT_KILL_ARG, VERSOLA_FAULT_KILL_SWITCH
 *                         a process whose arguments include KILL_ARG ends itself with SIGKILL
 *                         when it first writes to its standard output (its answer) while
 *                         KILL_SWITCH exists; the switch is removed first, so one process dies.
 *
 * Build: cc -shared -fPIC -o fault-shim.so fault-shim.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

static int named_errno(const char *name) {
    static const struct { const char *name; int value; } known[] = {
        {"ENOSPC", ENOSPC}, {"EIO", EIO}, {"EDQUOT", EDQUOT}, {"EROFS", EROFS}, {"EXDEV", EXDEV},
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        if (strcmp(name, known[i].name) == 0) return known[i].value;
    }
    int value = atoi(name);
    return value > 0 ? value : EIO;
}

/* Whether `call` is listed in VERSOLA_FAULT_CALLS. */
static int call_listed(const char *call) {
    const char *calls = getenv("VERSOLA_FAULT_CALLS");
    if (calls == NULL) return 0;
    size_t length = strlen(call);
    for (const char *p = calls; (p = strstr(p, call)) != NULL; p += length) {
        int starts = p == calls || p[-1] == ',' || p[-1] == ' ';
        int ends = p[length] == '\0' || p[length] == ',' || p[length] == ' ';
        if (starts && ends) return 1;
    }
    return 0;
}

/* Whether `path` is one the fault is for. Relative paths are never matched. */
static int path_matches(const char *path) {
    const char *under = getenv("VERSOLA_FAULT_UNDER");
    if (under == NULL || *under == '\0' || path == NULL) return 0;
    size_t length = strlen(under);
    if (strncmp(path, under, length) != 0 || (path[length] != '/' && path[length] != '\0')) return 0;
    const char *name = getenv("VERSOLA_FAULT_NAME");
    if (name == NULL || *name == '\0') return 1;
    const char *last = strrchr(path, '/');
    return strstr(last ? last + 1 : path, name) != NULL;
}

static int switched_on(const char *variable) {
    const char *path = getenv(variable);
    return path != NULL && *path != '\0' && access(path, F_OK) == 0;
}

/* Sets errno and answers 1 when `call` on `path` is to fail now. */
static int strikes(const char *call, const char *path) {
    if (!call_listed(call) || !path_matches(path) || !switched_on("VERSOLA_FAULT_SWITCH")) return 0;
    const char *name = getenv("VERSOLA_FAULT_ERRNO");
    int code = named_errno(name ? name : "EIO");
    const char *log = getenv("VERSOLA_FAULT_LOG");
    if (log != NULL && *log != '\0') {
        /* Straight to the kernel: this library's own write would look at the log's path again. */
        int fd = (int)syscall(SYS_openat, AT_FDCWD, log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
        if (fd >= 0) {
            char line[512];
            const char *last = strrchr(path, '/');
            int length = snprintf(line, sizeof line, "%s %d %s\n", call, code, last ? last + 1 : path);
            if (length > 0) (void)syscall(SYS_write, fd, line, (size_t)length);
            close(fd);
        }
    }
    errno = code;
    return 1;
}

static int descriptor_strikes(const char *call, int fd) {
    if (!call_listed(call)) return 0;
    char link[64], path[4096];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t length = readlink(link, path, sizeof path - 1);
    if (length <= 0) return 0;
    path[length] = '\0';
    return strikes(call, path);
}

#define REAL(type, name, ...) \
    static type (*real)(__VA_ARGS__); \
    if (real == NULL) real = (type (*)(__VA_ARGS__))dlsym(RTLD_NEXT, name)

/* Whether this process's arguments include `argument`. */
static int has_argument(const char *argument) {
    REAL(ssize_t, "read", int, void *, size_t);
    static char cmdline[8192];
    static ssize_t length = -1;
    if (length < 0) {
        int fd = (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
        length = fd < 0 ? 0 : real(fd, cmdline, sizeof cmdline - 1);
        if (fd >= 0) close(fd);
        if (length < 0) length = 0;
    }
    for (ssize_t at = 0; at < length; at += (ssize_t)strlen(cmdline + at) + 1) {
        if (strcmp(cmdline + at, argument) == 0) return 1;
    }
    return 0;
}

/* Ends this process when it is the one to die before answering (see the top). */
static void kill_before_answering(int fd) {
    const char *argument = getenv("VERSOLA_FAULT_KILL_ARG");
    if (fd != 1 || argument == NULL || *argument == '\0' || !has_argument(argument)) return;
    const char *path = getenv("VERSOLA_FAULT_KILL_SWITCH");
    if (path == NULL || *path == '\0' || unlink(path) != 0) return;
    raise(SIGKILL);
}

ssize_t write(int fd, const void *buffer, size_t count) {
    REAL(ssize_t, "write", int, const void *, size_t);
    kill_before_answering(fd);
    if (descriptor_strikes("write", fd)) return -1;
    return real(fd, buffer, count);
}

ssize_t pwrite(int fd, const void *buffer, size_t count, off_t offset) {
    REAL(ssize_t, "pwrite", int, const void *, size_t, off_t);
    if (descriptor_strikes("write", fd)) return -1;
    return real(fd, buffer, count, offset);
}

ssize_t pwrite64(int fd, const void *buffer, size_t count, off_t offset) {
    REAL(ssize_t, "pwrite64", int, const void *, size_t, off_t);
    if (descriptor_strikes("write", fd)) return -1;
    return real(fd, buffer, count, offset);
}

int fsync(int fd) {
    REAL(int, "fsync", int);
    if (descriptor_strikes("fsync", fd)) return -1;
    return real(fd);
}

int fdatasync(int fd) {
    REAL(int, "fdatasync", int);
    if (descriptor_strikes("fsync", fd)) return -1;
    return real(fd);
}

static int opens_for_writing(int flags) { return (flags & (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC)) != 0; }

/* The absolute form of `path` opened relative to `dirfd`, in `buffer`. */
static const char *absolute(int dirfd, const char *path, char *buffer, size_t size) {
    if (path == NULL || path[0] == '/') return path;
    char link[64], directory[4096];
    ssize_t length = -1;
    if (dirfd == AT_FDCWD) {
        if (getcwd(directory, sizeof directory) != NULL) length = (ssize_t)strlen(directory);
    } else {
        snprintf(link, sizeof link, "/proc/self/fd/%d", dirfd);
        length = readlink(link, directory, sizeof directory - 1);
    }
    if (length <= 0) return path;
    directory[length] = '\0';
    snprintf(buffer, size, "%s/%s", directory, path);
    return buffer;
}

#define OPEN_BODY(name, dirfd)                                                          \
    mode_t mode = 0;                                                                    \
    if (flags & (O_CREAT | O_TMPFILE)) {                                                \
        va_list arguments;                                                              \
        va_start(arguments, flags);                                                     \
        mode = va_arg(arguments, mode_t);                                               \
        va_end(arguments);                                                              \
    }                                                                                   \
    char full[4096];                                                                    \
    if (opens_for_writing(flags) && strikes("open", absolute(dirfd, path, full, sizeof full))) return -1;

int open(const char *path, int flags, ...) {
    REAL(int, "open", const char *, int, ...);
    OPEN_BODY("open", AT_FDCWD)
    return real(path, flags, mode);
}

int open64(const char *path, int flags, ...) {
    REAL(int, "open64", const char *, int, ...);
    OPEN_BODY("open64", AT_FDCWD)
    return real(path, flags, mode);
}

int openat(int dirfd, const char *path, int flags, ...) {
    REAL(int, "openat", int, const char *, int, ...);
    OPEN_BODY("openat", dirfd)
    return real(dirfd, path, flags, mode);
}

int openat64(int dirfd, const char *path, int flags, ...) {
    REAL(int, "openat64", int, const char *, int, ...);
    OPEN_BODY("openat64", dirfd)
    return real(dirfd, path, flags, mode);
}

int rename(const char *from, const char *to) {
    REAL(int, "rename", const char *, const char *);
    if (strikes("rename", from) || strikes("rename", to)) return -1;
    return real(from, to);
}

int renameat(int fromfd, const char *from, int tofd, const char *to) {
    REAL(int, "renameat", int, const char *, int, const char *);
    char a[4096], b[4096];
    if (strikes("rename", absolute(fromfd, from, a, sizeof a)) || strikes("rename", absolute(tofd, to, b, sizeof b))) return -1;
    return real(fromfd, from, tofd, to);
}

int renameat2(int fromfd, const char *from, int tofd, const char *to, unsigned int flags) {
    REAL(int, "renameat2", int, const char *, int, const char *, unsigned int);
    char a[4096], b[4096];
    if (strikes("rename", absolute(fromfd, from, a, sizeof a)) || strikes("rename", absolute(tofd, to, b, sizeof b))) return -1;
    return real(fromfd, from, tofd, to, flags);
}

int link(const char *from, const char *to) {
    REAL(int, "link", const char *, const char *);
    if (strikes("link", to)) return -1;
    return real(from, to);
}

int unlink(const char *path) {
    REAL(int, "unlink", const char *);
    if (strikes("unlink", path)) return -1;
    return real(path);
}
