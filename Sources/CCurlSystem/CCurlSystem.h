// libcurl, found through pkg-config ("libcurl"). This system library target exists so that
// SwiftPM names the package to install when libcurl's development files are missing
// (libcurl4-openssl-dev); CVersolaSystem wraps what Swift cannot call.
#include <curl/curl.h>
