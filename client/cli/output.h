// Shared output helpers for the CLI: results as JSON or one human line,
// errors on stderr. Files are written with common/output_file.h.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "client/json_views.h"
#include "common/output_file.h"
#include "common/status.h"
#include "qdcache/v1/qdcache.pb.h"

namespace qdcache::cli {

using client::CacheStatusName;
using client::ErrorJson;
using client::KindName;
using client::ResultJson;
// "cubin", "so" or "hsaco": the file extension for an artifact kind.
[[nodiscard]] std::string KindExtension(v1::ArtifactKind kind);

[[nodiscard]] std::string ResultLine(const v1::CompileResult& result);

// Where a file named on the command line is written: "-" is stdout.
[[nodiscard]] std::string OutputPath(const std::string& path);

// `s` without leading and trailing blanks (space, tab, CR, LF).
[[nodiscard]] std::string_view Trimmed(std::string_view s);

// Prints "qdcache: <status>" to stderr; with JSON output on, also remembers
// the first such error for FinishRun.
void PrintError(const Status& status);

// Machine output (--json): a run prints exactly one JSON document on stdout.
// A command prints its own with PrintJson (an answer that carries an error
// says so inside it); a run that fails before printing one gets
// {"error": {"code": "NOT_FOUND", "message": "..."}} from FinishRun, made of
// the first error PrintError saw. Process-wide state of the one `qdcache`
// run: call from the main thread only.
void SetJsonOutput(bool on);
// Prints `document` as one line on stdout.
void PrintJson(const nlohmann::json& document);
// Remembers `status` as the run's error without printing it (CLI11 has
// already printed a usage error).
void RememberError(const Status& status);
// Ends a run: with JSON output on, a failing run (`exit_code` not 0) that
// printed no document prints the error document. Returns `exit_code`.
[[nodiscard]] int FinishRun(int exit_code);

// The whole of a file the user named (IR, manifest, fast keys), at most
// kMaxInputFileBytes. Refuses a FIFO, socket or directory instead of blocking
// or reading nothing; a device that never ends (/dev/zero) is cut off at the
// cap and refused. NOT_FOUND when it does not exist; FAILED_PRECONDITION for
// the wrong kind of file or one too large (common/file_read.h). "-" is
// standard input.
[[nodiscard]] Status ReadFile(const std::string& path, std::string* out);
// The daemon's default --max-message-bytes (256 MiB): no request can carry
// more. The daemon's IR limit (--max-ir-bytes, 64 MiB by default) is not
// known here; the daemon enforces it.
inline constexpr std::size_t kMaxInputFileBytes = std::size_t{256} << 20;

}  // namespace qdcache::cli
