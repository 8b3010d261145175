#include "client/cli/credentials.h"

#include <cstdlib>
#include <string_view>

#include "client/cli/output.h"
#include "common/file_read.h"

namespace qdcache::cli {

Expected<std::string> LoadToken(const std::string& token_file) {
  if (token_file.empty()) {
    const char* env = std::getenv("QDCACHE_TOKEN");
    return std::string(Trimmed(env ? env : ""));
  }
  // Bounded and never blocking on a FIFO; the token is its first line.
  Expected<std::string> text = ReadSmallFile(token_file, "--token-file " + token_file, 64 << 10);
  if (!text.ok()) return text.status();
  std::string token(Trimmed(std::string_view(*text).substr(0, text->find('\n'))));
  if (token.empty())
    return InvalidArgument("--token-file: " + token_file + " holds no token on its first line");
  return token;
}

}  // namespace qdcache::cli
