// Where the `qdcache` CLI gets its bearer token: --token-file, else the
// QDCACHE_TOKEN environment variable. The token is never printed.
#pragma once

#include <string>

#include "common/expected.h"

namespace qdcache::cli {

// The token in `token_file` (its first line, surrounding blanks removed) or,
// when `token_file` is empty, $QDCACHE_TOKEN (empty when unset).
// NOT_FOUND when the file cannot be read; INVALID_ARGUMENT when it holds no
// token.
[[nodiscard]] Expected<std::string> LoadToken(const std::string& token_file);

}  // namespace qdcache::cli
