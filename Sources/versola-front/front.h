/*
 * The warm path of `versola token`: a small front program that links only the C library.
 *
 * It understands exactly the command lines `versola token [--profile P] [--format F]
 * [--force-refresh] [--json]` and asks a running session agent for the token. Anything else
 * (another command, a flag it does not know, --no-agent, no agent listening) goes to the
 * full `versola` engine with exec: arguments, environment and descriptors unchanged.
 * Only the plain success answer is printed here; every other answer the agent gives (an
 * error, an unusual token) is handed to the engine to render, so that messages live in one
 * place (ErrorReport). A request that reached the agent is never sent a second time.
 */
#ifndef VERSOLA_FRONT_H
#define VERSOLA_FRONT_H

#include <stddef.h>

/* What the command line asks for. */
struct front_request {
    const char *profile;
    /* 'r' raw, 'j' json, 'k' k8s. */
    char format;
    int force_refresh;
};

/* Parses argv[1...]; 0 when the front can answer it, -1 when the engine must. */
int front_parse(int argc, char **argv, struct front_request *request);

/* The fields of a plain success answer `{"ok":{...}}`. */
struct front_token {
    const char *access_token;
    size_t access_token_length;
    const char *token_type;
    size_t token_type_length;
    int has_expiry;
    long long expires_at;
};

/* Reads the agent's answer line; 0 for a plain success the front can print as is, -1 for
 * anything else (the engine renders it). */
int front_read_token(const char *line, size_t length, struct front_token *token);

/* Writes the token in `format` to standard output; -1 when the front cannot render it. */
int front_print_token(const struct front_token *token, char format);

#endif
