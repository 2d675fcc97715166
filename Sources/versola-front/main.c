/* The `versola` front: see front.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "front.h"

/* Names the descriptor holding an agent answer for the engine to render, and this process
 * (the engine checks the process id, so a value inherited from elsewhere is ignored).
 * The same name is in AgentReplyHandOver.swift. */
static const char hand_over_variable[] = "VERSOLA_AGENT_REPLY_FD";

/* The engine: `libexec/versola/versola` beside the front's `bin/` when installed, else a
 * `versola` in the front's own directory (the build directory), never the front itself. */
static void run_engine(char **argv) {
    char self[PATH_MAX];
    ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
    struct stat own, candidate_info;
    if (length > 0 && stat("/proc/self/exe", &own) == 0) {
        self[length] = 0;
        char *slash = strrchr(self, '/');
        if (slash) *slash = 0;
        const char *suffixes[] = {"/../libexec/versola/versola", "/versola"};
        for (size_t i = 0; i < sizeof suffixes / sizeof *suffixes; i++) {
            char candidate[PATH_MAX];
            if (snprintf(candidate, sizeof candidate, "%s%s", self, suffixes[i]) >= (int)sizeof candidate) continue;
            if (stat(candidate, &candidate_info) != 0) continue;
            if (candidate_info.st_dev == own.st_dev && candidate_info.st_ino == own.st_ino) continue;
            execv(candidate, argv);
        }
    }
    const char message[] = "versola: the versola engine is not installed beside this command "
                           "(expected ../libexec/versola/versola); reinstall with make install\n";
    if (write(STDERR_FILENO, message, sizeof message - 1) < 0) _exit(6);
    _exit(6);
}

/* Hands a delivered answer (empty when it was lost) to the engine to render; never returns. */
static void hand_over(char **argv, const char *line, size_t length) {
    int descriptor = front_memory_file("versola-agent-reply", line, length);
    /* One not written whole is read back as a lost answer. */
    if (descriptor < 0) descriptor = front_memory_file("versola-agent-reply", "", 0);
    char value[64];
    snprintf(value, sizeof value, "%d.%d", descriptor, (int)getpid());
    setenv(hand_over_variable, value, 1);
    run_engine(argv);
}

/* Whether `path` is a real directory owned by us; `exact` also asks for mode 0700. */
static int private_directory(const char *path, int exact) {
    struct stat info;
    if (lstat(path, &info) != 0 || !S_ISDIR(info.st_mode) || info.st_uid != getuid()) return 0;
    return exact ? (info.st_mode & 0777) == 0700 : (info.st_mode & 077) == 0;
}

/* The agent socket as AgentLocation.resolve finds it, when its directory is ready; 0 when
 * the engine must decide (it creates what is missing). */
static int socket_path(char *path, size_t capacity) {
    const char *runtime = getenv("XDG_RUNTIME_DIR");
    char directory[PATH_MAX];
    if (runtime && runtime[0] == '/' && private_directory(runtime, 0)) {
        if (snprintf(directory, sizeof directory, "%s/versola", runtime) >= (int)sizeof directory) return 0;
    } else {
        const char *temporary = getenv("TMPDIR");
        if (!temporary || temporary[0] != '/') temporary = "/tmp";
        size_t length = strlen(temporary);
        while (length > 1 && temporary[length - 1] == '/') length--;
        if (snprintf(directory, sizeof directory, "%.*s/versola-%u", (int)length, temporary, (unsigned)getuid())
            >= (int)sizeof directory)
            return 0;
    }
    if (!private_directory(directory, 1)) return 0;
    int written = snprintf(path, capacity, "%s/agent.sock", directory);
    return written > 0 && written <= 107 && (size_t)written < capacity;
}

/* A path the engine writes unchanged into the request: absolute, printable ASCII, nothing a
 * URL would normalise (`//`, `.` or `..` parts, a trailing slash). */
static int plain_path(const char *path) {
    size_t length = strlen(path);
    if (length < 2 || path[0] != '/' || path[length - 1] == '/' || length > 2048) return 0;
    for (size_t i = 0; i < length; i++) {
        unsigned char c = (unsigned char)path[i];
        if (c < 0x20 || c > 0x7e || c == '"' || c == '\\') return 0;
        if (c == '/' && (path[i + 1] == '/' || (path[i + 1] == '.' && (path[i + 2] == '/' || path[i + 2] == 0))
                || (path[i + 1] == '.' && path[i + 2] == '.' && (path[i + 3] == '/' || path[i + 3] == 0))))
            return 0;
    }
    return 1;
}

/* `$XDG_<NAME>` when absolute, else `$HOME` + `fallback` (XDGDirectories.current); 0 when
 * the engine must resolve it (no absolute HOME: it reads the password database). */
static int xdg_directory(const char *name, const char *fallback, char *path, size_t capacity) {
    const char *value = getenv(name);
    const char *home = getenv("HOME");
    int written;
    if (value && value[0] == '/') written = snprintf(path, capacity, "%s", value);
    else if (home && home[0] == '/') written = snprintf(path, capacity, "%s%s", home, fallback);
    else return 0;
    return written > 0 && (size_t)written < capacity && plain_path(path);
}

/* Writes all of `bytes`; 0 when the agent went away first. */
static int send_all(int descriptor, const char *bytes, size_t length) {
    size_t offset = 0;
    while (offset < length) {
        ssize_t written = send(descriptor, bytes + offset, length - offset, MSG_NOSIGNAL);
        if (written < 0 && errno == EINTR) continue;
        if (written < 0) return 0;
        offset += (size_t)written;
    }
    return 1;
}

/* Standard input the front read (docker's server address), put back before the engine runs. */
static char input[4096];
static long input_length = -1;

static void engine_with_input(char **argv) {
    if (input_length >= 0) front_restore_input(input, (size_t)input_length);
    run_engine(argv);
}

/* The request line of an adapter's `credential` request: the address is `url`, else docker's
 * server address on standard input (the target table names the profile: `profile` is unused). */
static int credential_request(
    char *line, size_t capacity, const char *tool, const char *url, const char *config, const char *state) {
    const char *address = url;
    size_t length = url ? strlen(url) : 0;
    if (!url) {
        input_length = front_read_input(input, sizeof input);
        if (input_length < 0) return -1;
        address = input;
        length = (size_t)input_length;
    }
    if (!front_plain_address(address, length, &address, &length)) return -1;
    return snprintf(line, capacity,
        "{\"v\":1,\"op\":\"credential\",\"profile\":\"default\",\"config\":\"%s\",\"state\":\"%s\","
        "\"args\":{\"tool\":\"%s\",\"address\":\"%.*s\",\"print\":true}}\n",
        config, state, tool, (int)length, address);
}

int main(int argc, char **argv) {
    struct front_request request;
    const char *url;
    const char *tool = front_credential(argc, argv, &url);
    if (!tool && front_parse(argc, argv, getenv("KUBERNETES_EXEC_INFO"), &request) != 0) run_engine(argv);
    /* Without the agent, or with settings the engine reads: the engine decides. */
    if (getenv("VERSOLA_NO_AGENT") || (!tool && getenv("VERSOLA_PROFILE"))) run_engine(argv);
    char config[2200], state[2200], path[PATH_MAX];
    if (!xdg_directory("XDG_CONFIG_HOME", "/.config", config, sizeof config)
        || !xdg_directory("XDG_STATE_HOME", "/.local/state", state, sizeof state) || !socket_path(path, sizeof path))
        run_engine(argv);

    int connection = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    memcpy(address.sun_path, path, strlen(path) + 1);
    if (connection < 0 || connect(connection, (struct sockaddr *)&address, sizeof address) != 0) run_engine(argv);
    /* Only an agent running as this user is asked (SO_PEERCRED), as AgentClient does. */
    struct ucred peer;
    socklen_t peer_length = sizeof peer;
    if (getsockopt(connection, SOL_SOCKET, SO_PEERCRED, &peer, &peer_length) != 0 || peer_length != sizeof peer
        || peer.uid != getuid())
        run_engine(argv);

    /* The request AgentRequest.line writes (docs/agent-protocol.md), asking for the printout. */
    char line[8192], print[128] = "";
    int length;
    if (tool) {
        length = credential_request(line, sizeof line, tool, url, config, state);
    } else {
        if (request.api_version) snprintf(print, sizeof print, ",\"apiVersion\":\"%s\"", request.api_version);
        length = snprintf(line, sizeof line,
            "{\"v\":1,\"op\":\"%s\",\"profile\":\"%s\",\"config\":\"%s\",\"state\":\"%s\","
            "\"args\":{\"forceRefresh\":%s,\"print\":{\"format\":\"%s\"%s}}}\n",
            request.kind == 'i' ? "id-token" : "token", request.profile, config, state,
            request.force_refresh ? "true" : "false", request.format, print);
    }
    if (length <= 0 || (size_t)length >= sizeof line || !send_all(connection, line, (size_t)length)) {
        close(connection);
        engine_with_input(argv);
    }

    /* Delivered: from here on the answer is printed or handed over, never asked again (R9). */
    signal(SIGPIPE, SIG_IGN);
    const char *answer;
    size_t answer_length;
    int printed = front_answer(connection, &answer, &answer_length) == 0;
    close(connection);
    if (printed) return 0;
    if (input_length >= 0) front_restore_input(input, (size_t)input_length);
    hand_over(argv, answer, answer_length);
    return 0;
}
