/* Preloaded into the test process by scripts/tsan.sh: tells ThreadSanitizer about the
   hand-over in Synchronization.Mutex's uninstrumented slow paths (see that script). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#define SWIFTCALL __attribute__((swiftcall))
#define SELF __attribute__((swift_context))
#define LOCK_SLOW "$s15Synchronization12_MutexHandleV9_lockSlowyys6UInt32VF"
#define TRY_LOCK_SLOW "$s15Synchronization12_MutexHandleV12_tryLockSlowSbyF"
#define UNLOCK_SLOW "$s15Synchronization12_MutexHandleV11_unlockSlowyyF"

typedef SWIFTCALL void (*lock_slow_fn)(uint32_t, void *SELF);
typedef SWIFTCALL bool (*try_lock_slow_fn)(void *SELF);
typedef SWIFTCALL void (*unlock_slow_fn)(void *SELF);

extern void __tsan_acquire(void *address) __attribute__((weak));
extern void __tsan_release(void *address) __attribute__((weak));

static lock_slow_fn real_lock_slow;
static try_lock_slow_fn real_try_lock_slow;
static unlock_slow_fn real_unlock_slow;

__attribute__((constructor)) static void resolve(void) {
    real_lock_slow = (lock_slow_fn)dlsym(RTLD_NEXT, LOCK_SLOW);
    real_try_lock_slow = (try_lock_slow_fn)dlsym(RTLD_NEXT, TRY_LOCK_SLOW);
    real_unlock_slow = (unlock_slow_fn)dlsym(RTLD_NEXT, UNLOCK_SLOW);
}

SWIFTCALL void versola_lock_slow(uint32_t id, void *SELF handle) __asm__(LOCK_SLOW);
SWIFTCALL void versola_lock_slow(uint32_t id, void *SELF handle) {
    if (!real_lock_slow) abort();
    real_lock_slow(id, handle);
    if (__tsan_acquire) __tsan_acquire(handle);
}

SWIFTCALL bool versola_try_lock_slow(void *SELF handle) __asm__(TRY_LOCK_SLOW);
SWIFTCALL bool versola_try_lock_slow(void *SELF handle) {
    if (!real_try_lock_slow) abort();
    bool locked = real_try_lock_slow(handle);
    if (locked && __tsan_acquire) __tsan_acquire(handle);
    return locked;
}

SWIFTCALL void versola_unlock_slow(void *SELF handle) __asm__(UNLOCK_SLOW);
SWIFTCALL void versola_unlock_slow(void *SELF handle) {
    if (!real_unlock_slow) abort();
    if (__tsan_release) __tsan_release(handle);
    real_unlock_slow(handle);
}
