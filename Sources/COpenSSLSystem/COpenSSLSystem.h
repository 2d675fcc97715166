// OpenSSL 3's libcrypto, found through pkg-config ("libcrypto": the engine does no TLS of its
// own, so it does not load libssl). This system library target exists so that SwiftPM names
// the package to install when OpenSSL's development files are missing (libssl-dev);
// CVersolaSystem wraps what Swift cannot call.
#include <openssl/evp.h>
