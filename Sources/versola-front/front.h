/*
 * The warm path of `versola token`: a small front program that links only the C library.
 *
 * It understands exactly the command lines `versola token [--profile P] [--format F]
 * [--token access|id] [--force-refresh] [--json]` and asks a running session agent for the
 * token; for `--format k8s` only while KUBERNETES_EXEC_INFO is unset or exactly what kubectl
 * writes (KubernetesExecInfo parses anything else). Anything else
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
    /* 'a' the access token, 'i' the ID token (--token). */
    char kind;
    /* For 'k': the ExecCredential apiVersion kubectl asked for. */
    const char *api_version;
    int force_refresh;
};

/* Parses argv[1...] (and for k8s `exec_info`, the value of KUBERNETES_EXEC_INFO or NULL);
 * 0 when the front can answer it, -1 when the engine must. */
int front_parse(int argc, char **argv, const char *exec_info, struct front_request *request);

/* The fields of a plain success answer `{"ok":{...}}`. */
struct front_token {
    /* The token (access or ID), as the answer holds it. */
    const char *value;
    size_t value_length;
    const char *token_type;
    size_t token_type_length;
    int has_expiry;
    long long expires_at;
};

/* Reads the agent's answer line, the token in member `member` (accessToken or idToken); 0
 * for a plain success the front can print as is, -1 for anything else (the engine renders it). */
int front_read_token(const char *line, size_t length, const char *member, struct front_token *token);

/* Writes the token as `request` asks to standard output; -1 when the front cannot render it. */
int front_print_token(const struct front_token *token, const struct front_request *request);

#endif
