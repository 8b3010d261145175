// The `qdcache` CLI's --token-file. Without it, the client reads
// QDCACHE_TOKEN / QDCACHE_TOKEN_FILE (client/endpoint.h). Never printed.
#pragma once

#include <string>

#include "common/expected.h"

namespace qdcache::cli {

// The token in `token_file` (its first line, surrounding blanks removed);
// empty when `token_file` is empty.
// NOT_FOUND when the file cannot be read; INVALID_ARGUMENT when it holds no
// token.
[[nodiscard]] Expected<std::string> LoadToken(const std::string& token_file);

}  // namespace qdcache::cli
