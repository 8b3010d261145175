#include "client/cli/credentials.h"

#include <cstdlib>
#include <fstream>

namespace qdcache::cli {
namespace {

std::string Trimmed(const std::string& s) {
  const char* blanks = " \t\r\n";
  const std::size_t begin = s.find_first_not_of(blanks);
  if (begin == std::string::npos) return "";
  return s.substr(begin, s.find_last_not_of(blanks) - begin + 1);
}

}  // namespace

Expected<std::string> LoadToken(const std::string& token_file) {
  if (token_file.empty()) {
    const char* env = std::getenv("QDCACHE_TOKEN");
    return Trimmed(env ? env : "");
  }
  std::ifstream in(token_file);
  if (!in) return NotFound("--token-file: cannot read " + token_file);
  std::string line;
  std::getline(in, line);
  std::string token = Trimmed(line);
  if (token.empty())
    return InvalidArgument("--token-file: " + token_file + " holds no token on its first line");
  return token;
}

}  // namespace qdcache::cli
