/* The command lines the front answers itself; the same rules as CommandParser, narrowed. */
#include <string.h>

#include "front.h"

/* A profile name the front passes on as is (anything else goes to the engine). */
static int plain_profile(const char *name) {
    size_t length = strlen(name);
    if (length == 0 || length > 64) return 0;
    for (size_t i = 0; i < length; i++) {
        char c = name[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_'
            || c == '.';
        if (!ok) return 0;
    }
    return 1;
}

static int format_code(const char *value, const char **format) {
    static const char *const formats[] = {"raw", "json", "k8s"};
    for (size_t i = 0; i < sizeof formats / sizeof *formats; i++) {
        if (strcmp(value, formats[i]) == 0) {
            *format = formats[i];
            return 0;
        }
    }
    return -1;
}

static int kind_code(const char *value, char *kind) {
    if (strcmp(value, "access") == 0) *kind = 'a';
    else if (strcmp(value, "id") == 0) *kind = 'i';
    else return -1;
    return 0;
}

/* The apiVersion of KUBERNETES_EXEC_INFO when it is unset (v1) or byte for byte what kubectl
 * writes (Go's encoder: these members in this order, a trailing newline); NULL otherwise. */
static const char *exec_api_version(const char *info) {
    static const char *const versions[] = {"client.authentication.k8s.io/v1", "client.authentication.k8s.io/v1beta1"};
    static const char head[] = "{\"kind\":\"ExecCredential\",\"apiVersion\":\"";
    static const char middle[] = "\",\"spec\":{\"interactive\":";
    if (!info || !info[0]) return versions[0];
    if (strncmp(info, head, sizeof head - 1) != 0) return NULL;
    const char *at = info + sizeof head - 1;
    for (size_t i = 0; i < sizeof versions / sizeof *versions; i++) {
        size_t length = strlen(versions[i]);
        if (strncmp(at, versions[i], length) != 0 || strncmp(at + length, middle, sizeof middle - 1) != 0) continue;
        const char *rest = at + length + sizeof middle - 1;
        if (strncmp(rest, "true", 4) == 0) rest += 4;
        else if (strncmp(rest, "false", 5) == 0) rest += 5;
        else return NULL;
        if (strcmp(rest, "}}") == 0 || strcmp(rest, "}}\n") == 0) return versions[i];
        return NULL;
    }
    return NULL;
}

int front_parse(int argc, char **argv, const char *exec_info, struct front_request *request) {
    int seen_token = 0, json = 0;
    const char *format = NULL;
    char kind = 'a';
    request->profile = "default";
    request->force_refresh = 0;
    for (int i = 1; i < argc; i++) {
        const char *argument = argv[i];
        if (argument[0] != '-' || strcmp(argument, "-") == 0) {
            if (seen_token || strcmp(argument, "token") != 0) return -1;
            seen_token = 1;
        } else if (strcmp(argument, "--json") == 0) {
            json = 1;
        } else if (strcmp(argument, "--force-refresh") == 0) {
            request->force_refresh = 1;
        } else if (strcmp(argument, "--profile") == 0 || strcmp(argument, "--format") == 0
            || strcmp(argument, "--token") == 0) {
            if (i + 1 >= argc) return -1;
            const char *value = argv[++i];
            if (strcmp(argument, "--profile") == 0) request->profile = value;
            else if (strcmp(argument, "--token") == 0) {
                if (kind_code(value, &kind) != 0) return -1;
            } else if (format_code(value, &format) != 0) return -1;
        } else if (strncmp(argument, "--profile=", 10) == 0) {
            request->profile = argument + 10;
        } else if (strncmp(argument, "--format=", 9) == 0) {
            if (format_code(argument + 9, &format) != 0) return -1;
        } else if (strncmp(argument, "--token=", 8) == 0) {
            if (kind_code(argument + 8, &kind) != 0) return -1;
        } else {
            return -1;
        }
    }
    if (!seen_token || !plain_profile(request->profile)) return -1;
    request->format = format ? format : (json ? "json" : "raw");
    request->kind = kind;
    request->api_version = NULL;
    if (strcmp(request->format, "k8s") == 0 && !(request->api_version = exec_api_version(exec_info))) return -1;
    return 0;
}
