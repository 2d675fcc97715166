/*
 * The warm path of `versola token`: a small front program that links only the C library.
 *
 * It understands exactly the command lines `versola token [--profile P] [--format F]
 * [--token access|id] [--force-refresh] [--json]` and asks a running session agent for the
 * token; for `--format k8s` only while KUBERNETES_EXEC_INFO is unset or exactly what kubectl
 * writes (KubernetesExecInfo parses anything else). Anything else
 * (another command, a flag it does not know, --no-agent, no agent listening) goes to the
 * full `versola` engine with exec: arguments, environment and descriptors unchanged.
 * The agent renders what is printed (TokenOutput): the front copies its printout to standard
 * output; every other answer (an error) is handed to the engine to render, so that words,
 * JSON and timestamps live in one place (ErrorReport, TokenOutput). A request that reached
 * the agent is never sent a second time.
 */
#ifndef VERSOLA_FRONT_H
#define VERSOLA_FRONT_H

#include <stddef.h>

/* What the command line asks for. */
struct front_request {
    const char *profile;
    /* "raw", "json" or "k8s". */
    const char *format;
    /* 'a' the access token, 'i' the ID token (--token). */
    char kind;
    /* For 'k': the ExecCredential apiVersion kubectl asked for. */
    const char *api_version;
    int force_refresh;
};

/* Parses argv[1...] (and for k8s `exec_info`, the value of KUBERNETES_EXEC_INFO or NULL);
 * 0 when the front can answer it, -1 when the engine must. */
int front_parse(int argc, char **argv, const char *exec_info, struct front_request *request);

/* Reads the agent's answer from `connection`. A printout frame (`print LENGTH` and LENGTH
 * bytes) is copied to standard output and 0 returned (a printout is a success). Anything else returns
 * -1 with `*line` and `*length` the answer's first line for the engine to read; a length of 0
 * when the answer was lost (the stream ended or was cut short). */
int front_answer(int connection, const char **line, size_t *length);

/* Whether argv is docker's `get`: `docker-credential-versola get` or `versola docker-credential get`. */
int front_docker_get(int argc, char **argv);

/* The tool of an adapter's command line the front answers: "docker" for docker's `get` (its
 * address on standard input), "python" for exactly `credential --url URL` (`*url` set); NULL
 * for any other command line. */
const char *front_credential(int argc, char **argv, const char **url);

/* Reads standard input to its end into `buffer`; the length, or -1 when it does not fit or
 * cannot be read. */
long front_read_input(char *buffer, size_t capacity);

/* A memory file holding `bytes`, read from its start; -1 when it could not be made whole. */
int front_memory_file(const char *name, const char *bytes, size_t length);

/* Makes `bytes` the standard input again (a memory file), for the engine to read. */
void front_restore_input(const char *bytes, size_t length);

/* The server address in `bytes` without surrounding blanks, when it is printable ASCII the
 * request can carry as it is (no quote, backslash or space inside); 0 otherwise. */
int front_plain_address(const char *bytes, size_t length, const char **start, size_t *count);

#endif
