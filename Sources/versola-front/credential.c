/* The adapters on the warm path: docker's `get` (`docker-credential-versola get`, a link to the
 * front, or `versola docker-credential get`) reads the server address on standard input, and
 * `versola credential --url URL` (the Python keyring backend's) takes it from argv; both ask
 * the agent's `credential` operation for the adapter's answer, which the agent renders
 * (CredentialResolution); the front only copies it out. Anything else goes to the engine,
 * with docker's address put back on standard input. */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "front.h"

/* The name docker runs its helper by (VersolaCommandLine.commandNames). */
static const char helper_name[] = "docker-credential-versola";

int front_docker_get(int argc, char **argv) {
    const char *slash = strrchr(argv[0], '/');
    const char *name = slash ? slash + 1 : argv[0];
    if (strcmp(name, helper_name) == 0) return argc == 2 && strcmp(argv[1], "get") == 0;
    return argc == 3 && strcmp(argv[1], "docker-credential") == 0 && strcmp(argv[2], "get") == 0;
}

const char *front_credential(int argc, char **argv, const char **url) {
    *url = NULL;
    if (front_docker_get(argc, argv)) return "docker";
    if (argc < 3 || strcmp(argv[1], "credential") != 0) return NULL;
    if (argc == 4 && strcmp(argv[2], "--url") == 0) *url = argv[3];
    else if (argc == 3 && strncmp(argv[2], "--url=", 6) == 0) *url = argv[2] + 6;
    return *url ? "python" : NULL;
}

long front_read_input(char *buffer, size_t capacity) {
    size_t used = 0;
    for (;;) {
        if (used == capacity) return -1;
        ssize_t count = read(STDIN_FILENO, buffer + used, capacity - used);
        if (count < 0 && errno == EINTR) continue;
        if (count < 0) return used == 0 ? -1 : (long)used;
        if (count == 0) return (long)used;
        used += (size_t)count;
    }
}

int front_memory_file(const char *name, const char *bytes, size_t length) {
    int descriptor = memfd_create(name, 0);
    if (descriptor < 0) return -1;
    size_t offset = 0;
    while (offset < length) {
        ssize_t written = write(descriptor, bytes + offset, length - offset);
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) break;
        offset += (size_t)written;
    }
    if (offset != length || lseek(descriptor, 0, SEEK_SET) != 0) {
        close(descriptor);
        return -1;
    }
    return descriptor;
}

void front_restore_input(const char *bytes, size_t length) {
    int descriptor = front_memory_file("versola-input", bytes, length);
    if (descriptor < 0) return;
    dup2(descriptor, STDIN_FILENO);
    close(descriptor);
}

int front_plain_address(const char *bytes, size_t length, const char **start, size_t *count) {
    while (length > 0 && (bytes[length - 1] == '\n' || bytes[length - 1] == '\r' || bytes[length - 1] == ' '
                             || bytes[length - 1] == '\t'))
        length--;
    while (length > 0 && (bytes[0] == ' ' || bytes[0] == '\t')) {
        bytes++;
        length--;
    }
    if (length == 0 || length > 1024) return 0;
    for (size_t i = 0; i < length; i++) {
        unsigned char c = (unsigned char)bytes[i];
        if (c <= 0x20 || c > 0x7e || c == '"' || c == '\\') return 0;
    }
    *start = bytes;
    *count = length;
    return 1;
}
