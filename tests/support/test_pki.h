// Certificates for TLS tests, generated at test time with the openssl CLI:
// a CA, a server certificate for 127.0.0.1 and localhost, a client
// certificate signed by the CA, and a self-signed client certificate with the
// same subject (which mutual TLS must still refuse). EC P-256 keys: fast.
#pragma once

#include <string>

namespace qdcache::testing {

struct TestPki {
  // Writes everything under `dir` (created if missing). Throws on failure,
  // with openssl's stderr in the message.
  TestPki(const std::string& dir, const std::string& client_cn = "ci-runner");

  std::string ca_cert;
  std::string server_cert, server_key;
  std::string client_cert, client_key;            // signed by ca_cert, CN = client_cn
  std::string self_signed_cert, self_signed_key;  // CN = client_cn, not signed by the CA
};

// The openssl binary on $PATH, or "" when there is none.
std::string OpensslBinary();

}  // namespace qdcache::testing
