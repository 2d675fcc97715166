// libcurl's header (libcurl4-openssl-dev), for its types and constants only: libcurl itself is
// not linked but loaded by the first request (CVersolaSystem/curl.c), so that a process that
// sends none never maps it and the thirty libraries it needs.
#include <curl/curl.h>
