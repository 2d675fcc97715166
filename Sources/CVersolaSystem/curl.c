#define _GNU_SOURCE 1
#include "CVersolaSystem.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/socket.h>

// libcurl is not linked. Linked, it and the thirty libraries it needs are mapped into every engine
// process at start, whether the process sends a request or not (a running agent mostly does not).
// The first transfer loads it with dlopen (`versola_curl_open`); the wrappers below call it
// through the functions resolved then, and fail cleanly (CURLE_FAILED_INIT, NULL) before that.

/// The libcurl functions Versola calls.
struct curl_functions {
    CURLcode (*global_init)(long flags);
    CURL *(*easy_init)(void);
    void (*easy_reset)(CURL *handle);
    void (*easy_cleanup)(CURL *handle);
    CURLcode (*easy_perform)(CURL *handle);
    CURLcode (*easy_setopt)(CURL *handle, CURLoption option, ...);
    CURLcode (*easy_getinfo)(CURL *handle, CURLINFO info, ...);
    struct curl_slist *(*slist_append)(struct curl_slist *list, const char *line);
    void (*slist_free_all)(struct curl_slist *list);
};

/// Filled by the first successful open, then published through `published` (never changed again).
static struct curl_functions first_opened;
static const struct curl_functions *published;
static pthread_mutex_t open_lock = PTHREAD_MUTEX_INITIALIZER;

static const struct curl_functions *curl(void) { return __atomic_load_n(&published, __ATOMIC_ACQUIRE); }

/// `dlsym`, remembering the first name that was missing.
static void *find(void *library, const char *symbol, const char **missing) {
    void *address = dlsym(library, symbol);
    if (address == NULL && *missing == NULL) *missing = symbol;
    return address;
}

/// Resolves every function; NULL, or the name of the first one missing.
static const char *find_all(void *library, struct curl_functions *out) {
    const char *missing = NULL;
    out->global_init = (CURLcode(*)(long))find(library, "curl_global_init", &missing);
    out->easy_init = (CURL * (*)(void)) find(library, "curl_easy_init", &missing);
    out->easy_reset = (void (*)(CURL *))find(library, "curl_easy_reset", &missing);
    out->easy_cleanup = (void (*)(CURL *))find(library, "curl_easy_cleanup", &missing);
    out->easy_perform = (CURLcode(*)(CURL *))find(library, "curl_easy_perform", &missing);
    out->easy_setopt = (CURLcode(*)(CURL *, CURLoption, ...))find(library, "curl_easy_setopt", &missing);
    out->easy_getinfo = (CURLcode(*)(CURL *, CURLINFO, ...))find(library, "curl_easy_getinfo", &missing);
    out->slist_append = (struct curl_slist * (*)(struct curl_slist *, const char *))
        find(library, "curl_slist_append", &missing);
    out->slist_free_all = (void (*)(struct curl_slist *))find(library, "curl_slist_free_all", &missing);
    return missing;
}

/// Publishes `found` (from `library`) unless a library was published before; runs libcurl's
/// global initialisation for the one published. Called with `open_lock` held.
static int publish(void *library, const struct curl_functions *found, char *reason, size_t reason_size) {
    if (curl() != NULL) {
        dlclose(library);  // only drops the reference this open added when it is the same library
        return 1;
    }
    CURLcode code = found->global_init(CURL_GLOBAL_SSL | CURL_GLOBAL_WIN32);
    if (code != CURLE_OK) {
        snprintf(reason, reason_size, "curl_global_init failed with code %d", (int)code);
        dlclose(library);
        return 0;
    }
    first_opened = *found;
    __atomic_store_n(&published, &first_opened, __ATOMIC_RELEASE);
    return 1;
}

int versola_curl_open(const char *name, char *reason, size_t reason_size) {
    pthread_mutex_lock(&open_lock);
    int ok = 0;
    void *library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    struct curl_functions found;
    const char *missing = NULL;
    if (library == NULL) {
        const char *error = dlerror();
        snprintf(reason, reason_size, "%s", error != NULL ? error : "dlopen failed");
    } else if ((missing = find_all(library, &found)) != NULL) {
        snprintf(reason, reason_size, "%s has no function %s", name, missing);
        dlclose(library);
    } else {
        ok = publish(library, &found, reason, reason_size);
    }
    pthread_mutex_unlock(&open_lock);
    return ok;
}

/// libcurl before 8.19 opens its sockets without close-on-exec, so a kept-alive connection
/// would live on in every program started meanwhile (a browser, a helper).
static curl_socket_t open_socket_close_on_exec(void *context, curlsocktype purpose, struct curl_sockaddr *address) {
    (void)context;
    (void)purpose;
    return socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
}

CURL *versola_curl_easy_init(void) { return curl() ? curl()->easy_init() : NULL; }

void versola_curl_easy_reset(CURL *handle) {
    if (curl()) curl()->easy_reset(handle);
}

void versola_curl_easy_cleanup(CURL *handle) {
    if (curl()) curl()->easy_cleanup(handle);
}

CURLcode versola_curl_easy_perform(CURL *handle) {
    return curl() ? curl()->easy_perform(handle) : CURLE_FAILED_INIT;
}

struct curl_slist *versola_curl_slist_append(struct curl_slist *list, const char *line) {
    return curl() ? curl()->slist_append(list, line) : NULL;
}

void versola_curl_slist_free_all(struct curl_slist *list) {
    if (curl()) curl()->slist_free_all(list);
}

CURLcode versola_curl_open_sockets_close_on_exec(CURL *handle) {
    return curl() ? curl()->easy_setopt(handle, CURLOPT_OPENSOCKETFUNCTION, open_socket_close_on_exec)
                  : CURLE_FAILED_INIT;
}

CURLcode versola_curl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl() ? curl()->easy_setopt(handle, option, value) : CURLE_FAILED_INIT;
}
CURLcode versola_curl_setopt_off(CURL *handle, CURLoption option, curl_off_t value) {
    return curl() ? curl()->easy_setopt(handle, option, value) : CURLE_FAILED_INIT;
}
CURLcode versola_curl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl() ? curl()->easy_setopt(handle, option, value) : CURLE_FAILED_INIT;
}
CURLcode versola_curl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl() ? curl()->easy_setopt(handle, option, value) : CURLE_FAILED_INIT;
}
CURLcode versola_curl_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl() ? curl()->easy_setopt(handle, option, value) : CURLE_FAILED_INIT;
}
CURLcode versola_curl_setopt_data_callback(CURL *handle, CURLoption option, versola_curl_data_callback callback) {
    return curl() ? curl()->easy_setopt(handle, option, callback) : CURLE_FAILED_INIT;
}
CURLcode versola_curl_setopt_progress_callback(CURL *handle, versola_curl_progress_callback callback) {
    return curl() ? curl()->easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, callback) : CURLE_FAILED_INIT;
}
CURLcode versola_curl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl() ? curl()->easy_getinfo(handle, info, value) : CURLE_FAILED_INIT;
}
CURLcode versola_curl_getinfo_off(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl() ? curl()->easy_getinfo(handle, info, value) : CURLE_FAILED_INIT;
}

// Loading libcurl also loads GnuTLS (its RTMP support links it; Versola's libcurl speaks TLS
// through OpenSSL and only http and https), whose constructor would initialise it and p11-kit:
// memory for a library that is never called. GnuTLS skips that when the program defines this
// function (gnutls.h, GNUTLS_SKIP_GLOBAL_INIT) and exports it: `make install` links the engine
// with --export-dynamic-symbol for it.
int _gnutls_global_init_skip(void);
int _gnutls_global_init_skip(void) { return 1; }
