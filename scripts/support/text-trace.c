/* A profiling aid for scripts/agent-order.sh, loaded with LD_PRELOAD into the engine: it logs
 * where one binary's code runs, so the functions an agent uses can be laid out together.
 *
 * At start the binary's .text is made inaccessible; the first instruction run on a page then
 * faults, the handler logs its address (an offset in the binary) and lets the page run. With
 * TEXT_TRACE_WINDOW=N only the N most recently entered pages stay runnable, so every entry into
 * another page faults again and the log names each function entered from elsewhere (slow, but
 * exact); with N=0 each page faults once and the log says which pages ran at all.
 *
 * Environment: TEXT_TRACE_BINARY (the binary's path as /proc/self/maps shows it),
 * TEXT_TRACE_RANGE (its .text as "start:end", hex offsets), TEXT_TRACE_OUT (the log is
 * TEXT_TRACE_OUT.<pid>), TEXT_TRACE_WINDOW. Without them it does nothing. The Swift runtime's
 * own fault handler must be off (SWIFT_BACKTRACE=enable=no). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGE 4096UL
#define MAX_WINDOW 64
#define SEEN_SLOTS (1UL << 21)

static unsigned long text_low, text_high, load_base;
static unsigned window_size;
static int log_fd = -1;
static _Atomic unsigned long seen[SEEN_SLOTS];
static _Atomic unsigned long window[MAX_WINDOW];
static _Atomic unsigned window_next;

/* Logs an offset once: an open-addressed set, safe to use from concurrent handlers. */
static void log_once(unsigned long offset) {
    unsigned long slot = (offset * 0x9E3779B97F4A7C15UL) >> 43;
    for (unsigned long probe = 0; probe < SEEN_SLOTS; probe++, slot = (slot + 1) & (SEEN_SLOTS - 1)) {
        unsigned long expected = 0;
        if (atomic_compare_exchange_strong(&seen[slot], &expected, offset)) break;
        if (expected == offset) return;
    }
    char digits[24], line[24];
    int count = 0, length = 0;
    do { digits[count++] = "0123456789abcdef"[offset & 15]; offset >>= 4; } while (offset);
    while (count) line[length++] = digits[--count];
    line[length++] = '\n';
    if (write(log_fd, line, (size_t)length) < 0) { /* a lost line only loses precision */ }
}

static void on_fault(int signal_number, siginfo_t *info, void *context) {
    (void)context;
    unsigned long address = (unsigned long)info->si_addr;
    if (address < text_low || address >= text_high) {
        signal(signal_number, SIG_DFL); /* a real fault: let it happen again, unhandled */
        return;
    }
    unsigned long page = address & ~(PAGE - 1);
    mprotect((void *)page, PAGE, PROT_READ | PROT_EXEC);
    if (window_size) {
        unsigned slot = atomic_fetch_add(&window_next, 1) % window_size;
        unsigned long evicted = atomic_exchange(&window[slot], page);
        if (evicted && evicted != page) mprotect((void *)evicted, PAGE, PROT_NONE);
    }
    log_once(address - load_base);
}

__attribute__((constructor)) static void start_tracing(void) {
    const char *binary = getenv("TEXT_TRACE_BINARY"), *range = getenv("TEXT_TRACE_RANGE");
    const char *out = getenv("TEXT_TRACE_OUT"), *window_text = getenv("TEXT_TRACE_WINDOW");
    unsigned long low, high;
    if (!binary || !range || !out || sscanf(range, "%lx:%lx", &low, &high) != 2) return;
    window_size = window_text ? (unsigned)strtoul(window_text, NULL, 10) : 0;
    if (window_size > MAX_WINDOW) window_size = MAX_WINDOW;

    FILE *maps = fopen("/proc/self/maps", "r");
    if (!maps) return;
    char line[4352];
    while (fgets(line, sizeof line, maps)) {
        unsigned long start, end, offset;
        char path[4096] = "";
        if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %4095s", &start, &end, &offset, path) == 4
            && offset == 0 && strcmp(path, binary) == 0) {
            load_base = start;
            break;
        }
    }
    fclose(maps);
    if (!load_base) return;

    char name[4352];
    snprintf(name, sizeof name, "%s.%d", out, (int)getpid());
    log_fd = open(name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (log_fd < 0) return;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = on_fault;
    action.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigaction(SIGSEGV, &action, NULL);
    text_low = (load_base + low + PAGE - 1) & ~(PAGE - 1);
    text_high = (load_base + high) & ~(PAGE - 1);
    mprotect((void *)text_low, text_high - text_low, PROT_NONE);
}
