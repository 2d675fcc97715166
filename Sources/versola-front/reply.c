/* The agent's answer: a printout frame copied to standard output, or the answer line handed
 * to the engine. No JSON is read here (docs/agent-protocol.md, "Printouts"). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "front.h"

/* The largest answer accepted, as UnixSocket.maximumLineLength. */
#define MAXIMUM_ANSWER (4 << 20)

struct answer {
    char *bytes;
    size_t used;
    size_t capacity;
};

/* Reads more of the answer; 0 at its end, on an error, or past MAXIMUM_ANSWER. */
static int read_more(int connection, struct answer *answer) {
    static char small[1 << 16];
    if (!answer->bytes) {
        answer->bytes = small;
        answer->capacity = sizeof small;
    }
    if (answer->used == answer->capacity) {
        if (answer->capacity > MAXIMUM_ANSWER) return 0;
        char *larger = malloc(answer->capacity * 4);
        if (!larger) return 0;
        memcpy(larger, answer->bytes, answer->used);
        answer->bytes = larger;
        answer->capacity *= 4;
    }
    for (;;) {
        ssize_t count = recv(connection, answer->bytes + answer->used, answer->capacity - answer->used, 0);
        if (count < 0 && errno == EINTR) continue;
        if (count <= 0) return 0;
        answer->used += (size_t)count;
        return 1;
    }
}

/* A decimal number of 1 to 9 digits at `*at`, which moves past it; -1 when there is none. */
static long number(const char **at, const char *end) {
    long value = 0;
    const char *start = *at;
    while (*at < end && **at >= '0' && **at <= '9' && *at - start < 10) value = value * 10 + (*(*at)++ - '0');
    size_t digits = (size_t)(*at - start);
    return digits == 0 || digits > 9 ? -1 : value;
}

/* The header `print LENGTH` of a printout frame in `line`; 0 when it is not one. */
static int printout_header(const char *line, size_t length, size_t *bytes) {
    const char *at = line, *end = line + length;
    if (length < 6 || memcmp(at, "print ", 6) != 0) return 0;
    at += 6;
    long size = number(&at, end);
    if (size < 0 || size > MAXIMUM_ANSWER || at != end) return 0;
    *bytes = (size_t)size;
    return 1;
}

/* Writes all of `bytes` to standard output; a closed pipe ends it quietly. */
static void print_all(const char *bytes, size_t length) {
    size_t offset = 0;
    while (offset < length) {
        ssize_t written = write(STDOUT_FILENO, bytes + offset, length - offset);
        if (written < 0 && errno == EINTR) continue;
        if (written < 0) return;
        offset += (size_t)written;
    }
}

int front_answer(int connection, const char **line, size_t *length) {
    struct answer answer = {NULL, 0, 0};
    char *newline = NULL;
    while (!newline) {
        size_t before = answer.used;
        if (!read_more(connection, &answer)) break;
        newline = memchr(answer.bytes + before, '\n', answer.used - before);
    }
    *line = answer.bytes ? answer.bytes : "";
    *length = 0;
    if (!newline) return -1; /* lost */
    size_t header = (size_t)(newline - answer.bytes);
    size_t bytes;
    if (!printout_header(answer.bytes, header, &bytes)) {
        *length = header; /* a JSON line: the engine reads it */
        return -1;
    }
    while (answer.used - header - 1 < bytes) {
        if (!read_more(connection, &answer)) return -1; /* cut short: lost */
    }
    print_all(answer.bytes + header + 1, bytes);
    return 0;
}
