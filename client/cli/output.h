// Shared output helpers for the CLI: results as JSON or one human line,
// errors on stderr, files written atomically.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "common/status.h"
#include "qdcache/v1/qdcache.pb.h"

namespace qdcache::cli {

[[nodiscard]] std::string CacheStatusName(v1::CacheStatus status);
[[nodiscard]] std::string KindName(v1::ArtifactKind kind);
// "cubin" or "so": the file extension for an artifact kind.
[[nodiscard]] std::string KindExtension(v1::ArtifactKind kind);

// {"status", "artifact_key", "kind", "size", ...} or {"status":"error", "error":...}
[[nodiscard]] nlohmann::json ResultJson(const v1::CompileResult& result);
[[nodiscard]] std::string ResultLine(const v1::CompileResult& result);

// Prints "qdcache: <status>" to stderr.
void PrintError(const Status& status);

// Writes `bytes` to `path` through a temporary file and rename.
[[nodiscard]] Status WriteFileAtomic(const std::string& path, const std::string& bytes);
[[nodiscard]] Status ReadFile(const std::string& path, std::string* out);

}  // namespace qdcache::cli
