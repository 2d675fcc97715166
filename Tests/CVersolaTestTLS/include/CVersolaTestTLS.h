/* The server side of TLS for test stand-ins (kubectl talks only to https API servers): an
 * OpenSSL context and blocking connections behind opaque pointers, so that Swift needs no
 * OpenSSL header. Test support only; nothing here is part of Versola. */
#ifndef CVERSOLA_TEST_TLS_H
#define CVERSOLA_TEST_TLS_H

#include <stddef.h>

/* A server context with `certificate` (a PEM chain file) and its `key` (PEM); NULL when
 * either cannot be used. */
void *versola_test_tls_context(const char *certificate, const char *key);

/* Frees a context made by versola_test_tls_context. */
void versola_test_tls_context_free(void *context);

/* Runs the handshake on the connected socket `descriptor` (which stays the caller's to
 * close); the connection, or NULL when the handshake failed. */
void *versola_test_tls_accept(void *context, int descriptor);

/* Reads at most `capacity` bytes: how many, 0 at the end of the stream or on an error. */
long versola_test_tls_read(void *connection, void *buffer, size_t capacity);

/* Writes all `length` bytes; 0 when done, -1 when the peer went away. */
int versola_test_tls_write(void *connection, const void *bytes, size_t length);

/* Sends close_notify and frees the connection. */
void versola_test_tls_close(void *connection);

#endif
