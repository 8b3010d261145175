#include "client/cli/credentials.h"

#include <string_view>

#include "client/cli/output.h"
#include "common/file_read.h"

namespace qdcache::cli {

Expected<std::string> LoadToken(const std::string& token_file) {
  // Without the flag, the client reads QDCACHE_TOKEN (client/endpoint.h).
  if (token_file.empty()) return std::string();
  // Bounded and never blocking on a FIFO; the token is its first line.
  Expected<std::string> text = ReadSmallFile(token_file, "--token-file " + token_file, 64 << 10);
  if (!text.ok()) return text.status();
  std::string token(Trimmed(std::string_view(*text).substr(0, text->find('\n'))));
  if (token.empty())
    return InvalidArgument("--token-file: " + token_file + " holds no token on its first line");
  return token;
}

}  // namespace qdcache::cli
