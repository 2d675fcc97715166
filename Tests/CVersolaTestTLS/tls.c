#include <openssl/err.h>
#include <openssl/ssl.h>

#include "CVersolaTestTLS.h"

void *versola_test_tls_context(const char *certificate, const char *key) {
    SSL_CTX *context = SSL_CTX_new(TLS_server_method());
    if (!context) return NULL;
    if (SSL_CTX_use_certificate_chain_file(context, certificate) != 1
        || SSL_CTX_use_PrivateKey_file(context, key, SSL_FILETYPE_PEM) != 1 || SSL_CTX_check_private_key(context) != 1) {
        SSL_CTX_free(context);
        return NULL;
    }
    SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION);
    return context;
}

void versola_test_tls_context_free(void *context) { SSL_CTX_free(context); }

void *versola_test_tls_accept(void *context, int descriptor) {
    SSL *connection = SSL_new(context);
    if (!connection) return NULL;
    if (SSL_set_fd(connection, descriptor) != 1 || SSL_accept(connection) != 1) {
        ERR_clear_error();
        SSL_free(connection);
        return NULL;
    }
    return connection;
}

long versola_test_tls_read(void *connection, void *buffer, size_t capacity) {
    size_t count = 0;
    if (SSL_read_ex(connection, buffer, capacity, &count) != 1) {
        ERR_clear_error();
        return 0;
    }
    return (long)count;
}

int versola_test_tls_write(void *connection, const void *bytes, size_t length) {
    size_t written = 0;
    while (length > 0) {
        if (SSL_write_ex(connection, bytes, length, &written) != 1) {
            ERR_clear_error();
            return -1;
        }
        bytes = (const char *)bytes + written;
        length -= written;
    }
    return 0;
}

void versola_test_tls_close(void *connection) {
    SSL_shutdown(connection);
    ERR_clear_error();
    SSL_free(connection);
}
