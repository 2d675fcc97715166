// Random bytes from the kernel's generator, drawn a page at a time for short requests.
//
// Every DPoP proof needs a fresh `jti`; one `getrandom` call per proof was about a fiftieth of the
// proof. Each thread keeps one page of the kernel's bytes and hands out short requests from it:
//   - the page is marked MADV_WIPEONFORK, so a forked child finds it zeroed (its count of bytes
//     left reads 0) and refills from the kernel: parent and child never share a byte;
//   - bytes handed out are wiped from the page at once, so the page only ever holds bytes nobody
//     has seen yet; MADV_DONTDUMP keeps it out of core dumps;
//   - a thread's page is wiped and unmapped when the thread ends.
// Where the kernel cannot wipe on fork (before Linux 4.14) nothing is pooled: every request is
// its own `getrandom` call, as before.
#define _GNU_SOURCE 1
#include "CVersolaSystem.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>

enum { pool_size = 4096, pool_largest_request = 64 };

struct random_pool {
    size_t left;  // unread bytes at the end of `bytes`; 0 in a page the kernel wiped on fork
    uint8_t bytes[pool_size - sizeof(size_t)];
};

// 0: not tried on this thread; 1: `thread_pool` is usable; -1: the kernel cannot wipe on fork.
static __thread int thread_pool_state;
static __thread struct random_pool *thread_pool;
static pthread_key_t pool_key;
static pthread_once_t pool_key_once = PTHREAD_ONCE_INIT;

static void pool_release(void *page) {
    explicit_bzero(page, pool_size);
    munmap(page, pool_size);
}

static void pool_make_key(void) {
    if (pthread_key_create(&pool_key, pool_release) != 0) pool_key = (pthread_key_t)-1;
}

/// Fills `count` bytes straight from the kernel; 0, or an errno value.
static int kernel_fill(uint8_t *out, size_t count) {
    size_t filled = 0;
    while (filled < count) {
        ssize_t got = getrandom(out + filled, count - filled, 0);
        if (got < 0) {
            if (errno == EINTR) continue;
            return errno;
        }
        filled += (size_t)got;
    }
    return 0;
}

/// This thread's page, made on first use; NULL when pooling is not possible here.
static struct random_pool *pool_for_thread(void) {
    if (thread_pool_state == 1) return thread_pool;
    if (thread_pool_state == -1) return NULL;
    thread_pool_state = -1;
    pthread_once(&pool_key_once, pool_make_key);
    if (pool_key == (pthread_key_t)-1) return NULL;
    void *page = mmap(NULL, pool_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (page == MAP_FAILED) return NULL;
    if (madvise(page, pool_size, MADV_WIPEONFORK) != 0 || pthread_setspecific(pool_key, page) != 0) {
        munmap(page, pool_size);
        return NULL;
    }
    (void)madvise(page, pool_size, MADV_DONTDUMP);
    thread_pool = page;
    thread_pool_state = 1;
    return thread_pool;
}

int versola_random_bytes(uint8_t *out, size_t count) {
    if (count == 0) return 0;
    struct random_pool *pool = count <= pool_largest_request ? pool_for_thread() : NULL;
    if (pool == NULL) return kernel_fill(out, count);
    if (pool->left < count) {
        int failure = kernel_fill(pool->bytes, sizeof pool->bytes);
        if (failure != 0) {
            pool->left = 0;
            return failure;
        }
        pool->left = sizeof pool->bytes;
    }
    uint8_t *start = pool->bytes + (pool->left - count);
    memcpy(out, start, count);
    explicit_bzero(start, count);
    pool->left -= count;
    return 0;
}
