#define _GNU_SOURCE 1
// SHA256_Init and its siblings are deprecated in OpenSSL 3 in favour of EVP, but they are the
// only one-shot digest that neither allocates nor dispatches through a provider.
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include "CVersolaSystem.h"

#include <openssl/sha.h>

#include <fcntl.h>
#include <spawn.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

// OpenSSL registers OPENSSL_cleanup with atexit on its first initialisation, and at exit that
// frees its ciphers, providers and thread keys while other threads of the process may still be
// in the middle of a seal, a digest or a TLS read (a watcher reading a record, libcurl finishing
// a request): a crash in a process that had already done its work. Initialising it first here,
// before any code can use it, with OPENSSL_INIT_NO_ATEXIT leaves the teardown to the kernel.
__attribute__((constructor)) static void versola_openssl_without_exit_teardown(void) {
    OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT, NULL);
}

int versola_accept_close_on_exec(int listener, struct sockaddr *address, socklen_t *length) {
    return accept4(listener, address, length, SOCK_CLOEXEC);
}

int versola_pipe_close_on_exec(int ends[2]) { return pipe2(ends, O_CLOEXEC); }

int versola_sha2(int bits, const uint8_t *data, size_t count, uint8_t *out) {
    switch (bits) {
    case 256: {
        SHA256_CTX context;
        int ok = SHA256_Init(&context) && SHA256_Update(&context, data, count) && SHA256_Final(out, &context);
        OPENSSL_cleanse(&context, sizeof context);
        return ok;
    }
    case 384: {
        SHA512_CTX context;
        int ok = SHA384_Init(&context) && SHA384_Update(&context, data, count) && SHA384_Final(out, &context);
        OPENSSL_cleanse(&context, sizeof context);
        return ok;
    }
    case 512: {
        SHA512_CTX context;
        int ok = SHA512_Init(&context) && SHA512_Update(&context, data, count) && SHA512_Final(out, &context);
        OPENSSL_cleanse(&context, sizeof context);
        return ok;
    }
    default:
        return 0;
    }
}

_Static_assert(sizeof(SHA256_CTX) <= VERSOLA_SHA256_STATE_SIZE, "VERSOLA_SHA256_STATE_SIZE is too small");

int versola_sha256_start(uint8_t *state, const uint8_t *data, size_t count) {
    SHA256_CTX context;
    int ok = SHA256_Init(&context) && SHA256_Update(&context, data, count);
    memcpy(state, &context, sizeof context);
    OPENSSL_cleanse(&context, sizeof context);
    return ok;
}

int versola_sha256_finish(const uint8_t *state, const uint8_t *data, size_t count, uint8_t *out) {
    SHA256_CTX context;
    memcpy(&context, state, sizeof context);
    int ok = SHA256_Update(&context, data, count) && SHA256_Final(out, &context);
    OPENSSL_cleanse(&context, sizeof context);
    return ok;
}

int versola_spawn_close_from(posix_spawn_file_actions_t *actions, int lowest) {
    return posix_spawn_file_actions_addclosefrom_np(actions, lowest);
}

int versola_set_dumpable(int dumpable) { return prctl(PR_SET_DUMPABLE, (unsigned long)dumpable, 0UL, 0UL, 0UL); }

void versola_openssl_free(void *pointer) { OPENSSL_free(pointer); }

EVP_PKEY *versola_ec_generate(const char *curve_name) {
    return EVP_PKEY_Q_keygen(NULL, NULL, "EC", curve_name);
}

EVP_PKEY *versola_rsa_generate(unsigned int bits) {
    return EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)bits);
}

EVP_PKEY *versola_ed25519_generate(void) { return EVP_PKEY_Q_keygen(NULL, NULL, "ED25519"); }

/// Builds a key of `type` from `params` with `EVP_PKEY_fromdata`.
static EVP_PKEY *key_from_params(const char *type, int selection, OSSL_PARAM *params) {
    EVP_PKEY *key = NULL;
    EVP_PKEY_CTX *context = EVP_PKEY_CTX_new_from_name(NULL, type, NULL);
    if (context == NULL) return NULL;
    if (EVP_PKEY_fromdata_init(context) <= 0 || EVP_PKEY_fromdata(context, &key, selection, params) <= 0) {
        key = NULL;
    }
    EVP_PKEY_CTX_free(context);
    return key;
}

/// Uncompressed SEC1 point: 0x04 || x || y. `out` holds 1 + 2 * size bytes.
static void encode_point(uint8_t *out, const uint8_t *x, const uint8_t *y, size_t size) {
    out[0] = 0x04;
    memcpy(out + 1, x, size);
    memcpy(out + 1 + size, y, size);
}

EVP_PKEY *versola_ec_public_from_xy(const char *curve_name, const uint8_t *x, const uint8_t *y,
                                    size_t coordinate_size) {
    if (coordinate_size == 0 || coordinate_size > 66) return NULL;
    uint8_t point[1 + 2 * 66];
    encode_point(point, x, y, coordinate_size);
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, (char *)curve_name, 0),
        OSSL_PARAM_construct_octet_string(OSSL_PKEY_PARAM_PUB_KEY, point, 1 + 2 * coordinate_size),
        OSSL_PARAM_construct_end(),
    };
    return key_from_params("EC", EVP_PKEY_PUBLIC_KEY, params);
}

EVP_PKEY *versola_ec_private_from_dxy(const char *curve_name, const uint8_t *d, const uint8_t *x,
                                      const uint8_t *y, size_t coordinate_size) {
    if (coordinate_size == 0 || coordinate_size > 66) return NULL;
    uint8_t point[1 + 2 * 66];
    encode_point(point, x, y, coordinate_size);
    BIGNUM *scalar = BN_bin2bn(d, (int)coordinate_size, NULL);
    if (scalar == NULL) return NULL;
    EVP_PKEY *key = NULL;
    OSSL_PARAM_BLD *builder = OSSL_PARAM_BLD_new();
    if (builder != NULL &&
        OSSL_PARAM_BLD_push_utf8_string(builder, OSSL_PKEY_PARAM_GROUP_NAME, curve_name, 0) &&
        OSSL_PARAM_BLD_push_octet_string(builder, OSSL_PKEY_PARAM_PUB_KEY, point, 1 + 2 * coordinate_size) &&
        OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_PRIV_KEY, scalar)) {
        OSSL_PARAM *params = OSSL_PARAM_BLD_to_param(builder);
        if (params != NULL) {
            key = key_from_params("EC", EVP_PKEY_KEYPAIR, params);
            OSSL_PARAM_free(params);
        }
    }
    OSSL_PARAM_BLD_free(builder);
    BN_clear_free(scalar);
    return key;
}

EVP_PKEY *versola_ec_private_from_d(const char *curve_name, const uint8_t *d, size_t coordinate_size) {
    if (coordinate_size == 0 || coordinate_size > 66) return NULL;
    int nid = OBJ_sn2nid(curve_name);
    if (nid == NID_undef) nid = EC_curve_nist2nid(curve_name);
    if (nid == NID_undef) return NULL;
    EC_GROUP *group = EC_GROUP_new_by_curve_name(nid);
    BIGNUM *scalar = BN_bin2bn(d, (int)coordinate_size, NULL);
    EC_POINT *point = group ? EC_POINT_new(group) : NULL;
    BIGNUM *x = BN_new(), *y = BN_new();
    EVP_PKEY *key = NULL;
    uint8_t bx[66], by[66];
    if (group != NULL && scalar != NULL && point != NULL && x != NULL && y != NULL &&
        !BN_is_zero(scalar) && BN_cmp(scalar, EC_GROUP_get0_order(group)) < 0 &&
        EC_POINT_mul(group, point, scalar, NULL, NULL, NULL) &&
        EC_POINT_get_affine_coordinates(group, point, x, y, NULL) &&
        BN_bn2binpad(x, bx, (int)coordinate_size) == (int)coordinate_size &&
        BN_bn2binpad(y, by, (int)coordinate_size) == (int)coordinate_size) {
        key = versola_ec_private_from_dxy(curve_name, d, bx, by, coordinate_size);
    }
    BN_free(x);
    BN_free(y);
    EC_POINT_free(point);
    BN_clear_free(scalar);
    EC_GROUP_free(group);
    return key;
}

EVP_PKEY *versola_rsa_public_from_ne(const uint8_t *n, size_t n_size, const uint8_t *e, size_t e_size) {
    BIGNUM *modulus = BN_bin2bn(n, (int)n_size, NULL);
    BIGNUM *exponent = BN_bin2bn(e, (int)e_size, NULL);
    EVP_PKEY *key = NULL;
    OSSL_PARAM_BLD *builder = OSSL_PARAM_BLD_new();
    if (modulus != NULL && exponent != NULL && builder != NULL &&
        OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_RSA_N, modulus) &&
        OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_RSA_E, exponent)) {
        OSSL_PARAM *params = OSSL_PARAM_BLD_to_param(builder);
        if (params != NULL) {
            key = key_from_params("RSA", EVP_PKEY_PUBLIC_KEY, params);
            OSSL_PARAM_free(params);
        }
    }
    OSSL_PARAM_BLD_free(builder);
    BN_free(modulus);
    BN_free(exponent);
    return key;
}

int versola_ec_public_xy(const EVP_PKEY *key, uint8_t *x, uint8_t *y, size_t coordinate_size) {
    BIGNUM *bx = NULL, *by = NULL;
    int ok = EVP_PKEY_get_bn_param(key, OSSL_PKEY_PARAM_EC_PUB_X, &bx) &&
             EVP_PKEY_get_bn_param(key, OSSL_PKEY_PARAM_EC_PUB_Y, &by) &&
             BN_bn2binpad(bx, x, (int)coordinate_size) == (int)coordinate_size &&
             BN_bn2binpad(by, y, (int)coordinate_size) == (int)coordinate_size;
    BN_free(bx);
    BN_free(by);
    return ok ? 1 : 0;
}

int versola_ec_private_d(const EVP_PKEY *key, uint8_t *d, size_t size) {
    BIGNUM *scalar = NULL;
    int ok = EVP_PKEY_get_bn_param(key, OSSL_PKEY_PARAM_PRIV_KEY, &scalar) &&
             BN_bn2binpad(scalar, d, (int)size) == (int)size;
    BN_clear_free(scalar);
    return ok ? 1 : 0;
}

int versola_rsa_param(const EVP_PKEY *key, const char *name, uint8_t **out, size_t *out_size) {
    BIGNUM *value = NULL;
    if (!EVP_PKEY_get_bn_param(key, name, &value)) return 0;
    int size = BN_num_bytes(value);
    uint8_t *buffer = OPENSSL_malloc(size > 0 ? (size_t)size : 1);
    if (buffer == NULL) {
        BN_free(value);
        return 0;
    }
    BN_bn2bin(value, buffer);
    BN_free(value);
    *out = buffer;
    *out_size = (size_t)size;
    return 1;
}
