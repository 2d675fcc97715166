#define _GNU_SOURCE
/* The agent's plain success answer, read and printed byte for byte as TokenOutput does.
 * Only the simplest form is taken (printable ASCII without escapes, whole-number expiry);
 * anything else returns -1 and the engine renders it. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "front.h"

struct cursor {
    const char *at;
    const char *end;
};

static int take(struct cursor *c, const char *text) {
    size_t length = strlen(text);
    if ((size_t)(c->end - c->at) < length || memcmp(c->at, text, length) != 0) return 0;
    c->at += length;
    return 1;
}

/* A string of printable ASCII with no escape: what needs no change in any output. */
static int plain_string(struct cursor *c, const char **start, size_t *length) {
    if (!take(c, "\"")) return 0;
    *start = c->at;
    while (c->at < c->end && *c->at != '"') {
        unsigned char byte = (unsigned char)*c->at;
        if (byte < 0x20 || byte > 0x7e || byte == '\\') return 0;
        c->at++;
    }
    if (c->at == c->end) return 0;
    *length = (size_t)(c->at - *start);
    c->at++;
    return 1;
}

/* A whole number of at most 12 digits, no sign, no leading zero. */
static int plain_number(struct cursor *c, long long *value) {
    const char *start = c->at;
    long long result = 0;
    while (c->at < c->end && *c->at >= '0' && *c->at <= '9' && c->at - start < 13) {
        result = result * 10 + (*c->at - '0');
        c->at++;
    }
    size_t digits = (size_t)(c->at - start);
    if (digits == 0 || digits > 12 || (digits > 1 && *start == '0')) return 0;
    *value = result;
    return 1;
}

int front_read_token(const char *line, size_t length, const char *member, struct front_token *token) {
    struct cursor c = {line, line + length};
    int seen_value = 0, seen_type = 0, seen_expiry = 0;
    memset(token, 0, sizeof *token);
    if (!take(&c, "{\"ok\":{")) return -1;
    if (take(&c, "}")) return -1;
    for (;;) {
        const char *name;
        size_t name_length;
        if (!plain_string(&c, &name, &name_length) || !take(&c, ":")) return -1;
#define IS(literal) (name_length == sizeof(literal) - 1 && memcmp(name, literal, name_length) == 0)
        if (name_length == strlen(member) && memcmp(name, member, name_length) == 0) {
            if (seen_value++ || !plain_string(&c, &token->value, &token->value_length)) return -1;
        } else if (IS("tokenType")) {
            if (seen_type++ || !plain_string(&c, &token->token_type, &token->token_type_length)) return -1;
        } else if (IS("expiresAt")) {
            if (seen_expiry++) return -1;
            if (!take(&c, "null")) {
                if (!plain_number(&c, &token->expires_at)) return -1;
                token->has_expiry = 1;
            }
        } else {
            /* Any other member: only simple values are skipped over. */
            const char *skipped;
            size_t skipped_length;
            long long number;
            if (!plain_string(&c, &skipped, &skipped_length) && !take(&c, "true") && !take(&c, "false")
                && !take(&c, "null") && !plain_number(&c, &number))
                return -1;
        }
#undef IS
        if (take(&c, "}")) break;
        if (!take(&c, ",")) return -1;
    }
    if (!take(&c, "}") || c.at != c.end || !seen_value) return -1;
    if (!seen_type) {
        token->token_type = "Bearer";
        token->token_type_length = 6;
    }
    return 0;
}

/* RFC 3339 UTC, as AccessTokenExpiry.rfc3339 writes it; -1 outside years 1970–9999. */
static int rfc3339(long long seconds, char *text, size_t capacity) {
    if (seconds < 0 || seconds >= 253402300800LL) return -1;
    time_t moment = (time_t)seconds;
    struct tm parts;
    if (!gmtime_r(&moment, &parts)) return -1;
    snprintf(text, capacity, "%04d-%02d-%02dT%02d:%02d:%02dZ", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
        parts.tm_hour, parts.tm_min, parts.tm_sec);
    return 0;
}

/* When the expiry is unknown kubectl is told to ask again after this long (TokenOutput). */
static const long long unknown_expiry_lifetime = 60;

struct output {
    char *bytes;
    size_t length;
    size_t capacity;
};

static void append(struct output *out, const char *text, size_t length) {
    /* front_print_token checks the total fits before it starts. */
    memcpy(out->bytes + out->length, text, length);
    out->length += length;
}

static void append_text(struct output *out, const char *text) { append(out, text, strlen(text)); }

int front_print_token(const struct front_token *token, const struct front_request *request) {
    static char buffer[1 << 16];
    struct output out = {buffer, 0, sizeof buffer};
    char expiry[80];
    if (token->value_length + token->token_type_length + 256 > sizeof buffer) return -1;
    switch (request->format) {
    case 'r':
        append(&out, token->value, token->value_length);
        append_text(&out, "\n");
        break;
    case 'j':
        if (request->kind == 'i') {
            append_text(&out, "{\"idToken\":\"");
            append(&out, token->value, token->value_length);
        } else {
            append_text(&out, "{\"accessToken\":\"");
            append(&out, token->value, token->value_length);
            append_text(&out, "\",\"tokenType\":\"");
            append(&out, token->token_type, token->token_type_length);
        }
        if (token->has_expiry) {
            if (rfc3339(token->expires_at, expiry, sizeof expiry) != 0) return -1;
            append_text(&out, "\",\"expiresAt\":\"");
            append_text(&out, expiry);
            append_text(&out, "\"}\n");
        } else {
            append_text(&out, "\",\"expiresAt\":null}\n");
        }
        break;
    case 'k': {
        /* kubectl sends Bearer only: a DPoP-bound access token is refused by the engine. */
        if (request->kind == 'a' && (token->token_type_length != 6 || memcmp(token->token_type, "Bearer", 6) != 0))
            return -1;
        long long seconds = token->has_expiry ? token->expires_at : (long long)time(NULL) + unknown_expiry_lifetime;
        if (rfc3339(seconds, expiry, sizeof expiry) != 0) return -1;
        append_text(&out, "{\"apiVersion\":\"");
        append_text(&out, request->api_version);
        append_text(&out, "\",\"kind\":\"ExecCredential\",\"status\":{\"token\":\"");
        append(&out, token->value, token->value_length);
        append_text(&out, "\",\"expirationTimestamp\":\"");
        append_text(&out, expiry);
        append_text(&out, "\"}}\n");
        break;
    }
    default:
        return -1;
    }
    /* Like the engine's console: write(2) until done; a closed pipe ends it quietly. */
    size_t offset = 0;
    while (offset < out.length) {
        ssize_t written = write(STDOUT_FILENO, out.bytes + offset, out.length - offset);
        if (written < 0) {
            if (errno == EINTR) continue;
            break;
        }
        offset += (size_t)written;
    }
    return 0;
}
