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

static int format_code(const char *value, char *format) {
    if (strcmp(value, "raw") == 0) *format = 'r';
    else if (strcmp(value, "json") == 0) *format = 'j';
    else if (strcmp(value, "k8s") == 0) *format = 'k';
    else return -1;
    return 0;
}

int front_parse(int argc, char **argv, struct front_request *request) {
    int seen_token = 0, json = 0;
    char format = 0;
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
        } else if (strcmp(argument, "--profile") == 0 || strcmp(argument, "--format") == 0) {
            if (i + 1 >= argc) return -1;
            const char *value = argv[++i];
            if (argument[3] == 'p') request->profile = value;
            else if (format_code(value, &format) != 0) return -1;
        } else if (strncmp(argument, "--profile=", 10) == 0) {
            request->profile = argument + 10;
        } else if (strncmp(argument, "--format=", 9) == 0) {
            if (format_code(argument + 9, &format) != 0) return -1;
        } else {
            return -1;
        }
    }
    if (!seen_token || !plain_profile(request->profile)) return -1;
    request->format = format ? format : (json ? 'j' : 'r');
    return 0;
}
