// OpenSSL 3, found through pkg-config ("openssl"). This system library target exists so that
// SwiftPM names the package to install when OpenSSL's development files are missing
// (libssl-dev); CVersolaSystem wraps what Swift cannot call.
#include <openssl/evp.h>
