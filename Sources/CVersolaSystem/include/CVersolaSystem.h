// The C shim over OpenSSL 3 and libcurl.
//
// Swift cannot call variadic C functions nor function-like macros, so the few of
// those Versola needs are wrapped here with fixed, typed signatures and the
// `versola_` prefix. Everything else of OpenSSL is imported from its headers as is.
// libcurl is not linked (curl.c loads it when first needed): its header gives the types and
// constants, and Swift calls only the `versola_curl_` functions; a call to a `curl_` function
// itself would not link.
#ifndef VERSOLA_SYSTEM_H
#define VERSOLA_SYSTEM_H

#define CURL_DISABLE_TYPECHECK 1

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/obj_mac.h>
#include <openssl/param_build.h>
#include <openssl/params.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>

#include <curl/curl.h>

#include <spawn.h>
#include <sys/random.h>
#include <sys/socket.h>

// MARK: - Descriptors a child process never inherits

/// `accept4` with `SOCK_CLOEXEC` (Swift's Glibc module does not show `accept4`): the new
/// descriptor is close-on-exec from its first instant, so a process started on another thread
/// at that moment cannot inherit it. -1 with `errno` set on failure.
int versola_accept_close_on_exec(int listener, struct sockaddr *address, socklen_t *length);

/// `pipe2` with `O_CLOEXEC`. 0 on success, -1 with `errno` set.
int versola_pipe_close_on_exec(int ends[2]);

/// Adds "close every descriptor from `lowest` up" to a spawn's file actions
/// (`posix_spawn_file_actions_addclosefrom_np`, glibc 2.34). 0 on success.
int versola_spawn_close_from(posix_spawn_file_actions_t *actions, int lowest);

// MARK: - Random bytes

/// `count` bytes of the kernel's random generator into `out`. Requests of up to 64 bytes are
/// served from a page of the kernel's bytes kept per thread (wiped on fork, wiped as it is read;
/// random.c says why); longer ones, and any request where the kernel cannot wipe a page on fork,
/// are a `getrandom` call each. 0 on success, else the `errno` of the failed call.
int versola_random_bytes(uint8_t *out, size_t count);

// MARK: - Base64url

/// Decodes whole blocks of 32 base64url characters from `in` (`in_count` of them) into `out`, 24
/// bytes a block, while a block remains and `out_room` leaves 32 bytes to write (each block is
/// stored 32 bytes wide; the last 8 are overwritten next). Stops before the first block holding
/// a character outside the alphabet, and does nothing where AVX2 is unavailable: the caller
/// decodes the rest, and reports any error. Returns the characters consumed (a multiple of 32)
/// and sets `*written` to the bytes made.
size_t versola_base64url_decode_blocks(const uint8_t *in, size_t in_count, uint8_t *out, size_t out_room,
                                       size_t *written);

/// Encodes whole blocks of 24 bytes from `in` (`in_count` of them) into `out`, 32 characters a
/// block, while 32 input bytes are left to read and `out_room` leaves 32 characters to write.
/// Does nothing where AVX2 is unavailable: the caller encodes the rest. Returns the bytes
/// consumed (a multiple of 24) and sets `*written` to the characters made.
size_t versola_base64url_encode_blocks(const uint8_t *in, size_t in_count, uint8_t *out, size_t out_room,
                                       size_t *written);

// MARK: - OpenSSL

/// `OPENSSL_free` is a macro.
void versola_openssl_free(void *pointer);

/// The SHA-2 digest (`bits` 256, 384 or 512) of `count` bytes into `out` (`bits / 8` bytes),
/// without an EVP context: no allocation and no provider dispatch per call. 1 on success.
int versola_sha2(int bits, const uint8_t *data, size_t count, uint8_t *out);

/// The size of a SHA-256 state saved by `versola_sha256_start` (at least OpenSSL's SHA256_CTX).
#define VERSOLA_SHA256_STATE_SIZE 128

/// Hashes `count` bytes that begin many messages and saves the state in `state`
/// (VERSOLA_SHA256_STATE_SIZE bytes). 1 on success.
int versola_sha256_start(uint8_t *state, const uint8_t *data, size_t count);

/// The SHA-256 digest (32 bytes into `out`) of the bytes saved in `state` followed by `count`
/// bytes of `data`; `state` is left as it was. 1 on success.
int versola_sha256_finish(const uint8_t *state, const uint8_t *data, size_t count, uint8_t *out);

/// Generates an EC key on the named curve ("P-256", "P-384", "P-521"). NULL on failure.
EVP_PKEY *versola_ec_generate(const char *curve_name);

/// Generates an RSA key of `bits` bits with public exponent 65537. NULL on failure.
EVP_PKEY *versola_rsa_generate(unsigned int bits);

/// Generates an Ed25519 key. NULL on failure.
EVP_PKEY *versola_ed25519_generate(void);

/// Builds an EC public key from its affine coordinates (big-endian, `coordinate_size` bytes each).
EVP_PKEY *versola_ec_public_from_xy(const char *curve_name, const uint8_t *x, const uint8_t *y,
                                    size_t coordinate_size);

/// Builds an EC private key from the private scalar and the public coordinates.
EVP_PKEY *versola_ec_private_from_dxy(const char *curve_name, const uint8_t *d, const uint8_t *x,
                                      const uint8_t *y, size_t coordinate_size);

/// Builds an EC private key from the private scalar alone, computing the public point.
EVP_PKEY *versola_ec_private_from_d(const char *curve_name, const uint8_t *d, size_t coordinate_size);

/// Builds an RSA public key from its big-endian modulus and exponent.
EVP_PKEY *versola_rsa_public_from_ne(const uint8_t *n, size_t n_size, const uint8_t *e, size_t e_size);

/// Writes an EC key's affine public coordinates (each padded to `coordinate_size`). 1 on success.
int versola_ec_public_xy(const EVP_PKEY *key, uint8_t *x, uint8_t *y, size_t coordinate_size);

/// Writes an EC key's private scalar padded to `size` bytes. 1 on success.
int versola_ec_private_d(const EVP_PKEY *key, uint8_t *d, size_t size);

/// Writes the big-endian bytes of an RSA key's BIGNUM parameter ("n", "e") into a
/// freshly allocated buffer the caller frees with `versola_openssl_free`. 1 on success.
int versola_rsa_param(const EVP_PKEY *key, const char *name, uint8_t **out, size_t *out_size);

// MARK: - libcurl, loaded when the first transfer needs it (curl.c)

/// Loads libcurl from `name` ("libcurl.so.4") with dlopen and resolves the functions below. The
/// first library opened with success is the one they call, initialised once
/// (`curl_global_init`); a later success only checks `name`. 1 on success; 0 with the reason
/// (the loader's message, or the missing function) in `reason`, and nothing changed.
int versola_curl_open(const char *name, char *reason, size_t reason_size);

CURL *versola_curl_easy_init(void);
void versola_curl_easy_reset(CURL *handle);
void versola_curl_easy_cleanup(CURL *handle);
CURLcode versola_curl_easy_perform(CURL *handle);
struct curl_slist *versola_curl_slist_append(struct curl_slist *list, const char *line);
void versola_curl_slist_free_all(struct curl_slist *list);

CURLcode versola_curl_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode versola_curl_setopt_off(CURL *handle, CURLoption option, curl_off_t value);
CURLcode versola_curl_setopt_string(CURL *handle, CURLoption option, const char *value);
CURLcode versola_curl_setopt_pointer(CURL *handle, CURLoption option, void *value);
CURLcode versola_curl_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value);

/// Makes the handle open its sockets close-on-exec (`CURLOPT_OPENSOCKETFUNCTION`).
CURLcode versola_curl_open_sockets_close_on_exec(CURL *handle);

typedef size_t (*versola_curl_data_callback)(char *data, size_t size, size_t count, void *context);
typedef int (*versola_curl_progress_callback)(void *context, curl_off_t dltotal, curl_off_t dlnow,
                                              curl_off_t ultotal, curl_off_t ulnow);

CURLcode versola_curl_setopt_data_callback(CURL *handle, CURLoption option, versola_curl_data_callback callback);
CURLcode versola_curl_setopt_progress_callback(CURL *handle, versola_curl_progress_callback callback);

CURLcode versola_curl_getinfo_long(CURL *handle, CURLINFO info, long *value);
CURLcode versola_curl_getinfo_off(CURL *handle, CURLINFO info, curl_off_t *value);

// MARK: - Process

/// `prctl(PR_SET_DUMPABLE, dumpable)` (prctl is variadic): 0 makes the process produce no core
/// dump and keeps other processes of the user from reading its memory through /proc or ptrace.
int versola_set_dumpable(int dumpable);

#endif
