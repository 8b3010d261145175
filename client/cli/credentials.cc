#include "client/cli/credentials.h"

#include "client/endpoint.h"

namespace qdcache::cli {

Expected<std::string> LoadToken(const std::string& token_file) {
  // Without the flag, the client reads QDCACHE_TOKEN (client/endpoint.h).
  if (token_file.empty()) return std::string();
  return client::ReadTokenFile(token_file, "--token-file " + token_file);
}

}  // namespace qdcache::cli
