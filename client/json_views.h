// The JSON documents of the client's answers, one function per answer:
// what `qdcache <command> --json` prints and what the C ABI (and so Python)
// returns for the same call, made in one place so the two cannot drift.
// Keys are hex, sizes are numbers, times ISO 8601 UTC; a value the daemon
// does not know (a CPU kernel's register count) is left out, never -1.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "qdcache/v1/qdcache.pb.h"

namespace qdcache::client {

[[nodiscard]] std::string CacheStatusName(v1::CacheStatus status);  // "compiled", "hit", ...
[[nodiscard]] std::string KindName(v1::ArtifactKind kind);          // "cubin", "shared_object", "hsa_code_object"
// "2026-11-26T23:06:14Z"
[[nodiscard]] std::string IsoTime(std::uint64_t unix_ms);

// {"code": "NOT_FOUND", "message": "..."}
[[nodiscard]] nlohmann::json ErrorJson(const Status& status);
// One compile or lookup item: {"status", "artifact_key", "kind", "size",
// "payload_digest", "target", "toolchain", "compile_seconds", "entries":
// [{"name", "registers"?, ...}], "lowered_names"?, "compile_log"?} or
// {"status": "error", "error": {...}}.
// With "alias_conflict" {"previous_artifact_key", "policy", "rebound",
// "components_unknown", "changes", "message"}, "miss_reason"
// {"previous_artifact_key", "basis", "changes", "message"} and
// "dependencies" [{"name", "digest"}] when the result has them.
[[nodiscard]] nlohmann::json ResultJson(const v1::CompileResult& result);
// An artifact's kernels: [{"name", "registers", "shared_bytes", "local_bytes",
// "max_threads_per_block"}], a figure the backend does not know left out.
[[nodiscard]] nlohmann::json EntriesJson(const google::protobuf::RepeatedPtrField<v1::EntryMetadata>& entries);
// One stored artifact (inspect): ResultJson's fields without "status", plus "created".
[[nodiscard]] nlohmann::json ArtifactJson(const v1::Artifact& artifact);

// Hits and misses of one cache level.
struct CacheLevel {
  std::string name;  // "alias", "artifact", "stage", "remote"
  std::uint64_t hits = 0;
  std::uint64_t misses = 0;
  bool enabled = true;  // false: remote with remote_state "off"

  // hits / (hits + misses); nullopt before any lookup at this level.
  [[nodiscard]] std::optional<double> hit_rate() const;
};
// alias (alias_hits / alias_misses), artifact (artifact_hits /
// artifact_misses), stage (stage_hits / stage_misses), remote (remote_hits /
// remote_misses).
[[nodiscard]] std::vector<CacheLevel> CacheLevels(const v1::Stats& stats);
// Every field of Stats by its proto name, plus "levels": {"alias": {"hits",
// "misses", "hit_rate" (null before any lookup), "enabled"}, ...}.
[[nodiscard]] nlohmann::json StatsJson(const v1::Stats& stats);

// {"entries": [{"artifact_key", "kind", "target", "size" (the payload),
// "stored_bytes" (what counts against the cap), "created", "last_access",
// "compile_seconds"}]} or, for a listing of aliases, {"aliases":
// [{"namespace", "target", "fast_key" (hex), "artifact_key"}]}.
[[nodiscard]] nlohmann::json ListJson(const v1::ListResponse& response, bool aliases);
// {"evicted_entries", "evicted_bytes", "dry_run"}
[[nodiscard]] nlohmann::json EvictJson(const v1::EvictResponse& response);
// {"checked", "dropped", "dropped_keys"}
[[nodiscard]] nlohmann::json VerifyJson(const v1::VerifyResponse& response);
// {"explanations": [{"artifact_key", "components": {name: value}, "error"?}], "differing": [...]}
[[nodiscard]] nlohmann::json ExplainJson(const v1::ExplainResponse& response);
// Stored artifacts or an alias explained from keys (qdcache explain --key /
// --fast-key): {"artifacts": [{"artifact_key", "stored", "components_known",
// "components": {name: value}, "target", "toolchain", "created"}],
// "differences": [{"name", "before", "after"}], "alias"?: {"found",
// "artifact_key", "dependencies": [{"name", "digest"}], "conflicts": [...]}}
[[nodiscard]] nlohmann::json ExplainStoredJson(const v1::ExplainStoredResponse& response);
// Component changes: [{"name", "before", "after"}], null for a side that has none.
[[nodiscard]] nlohmann::json ChangesJson(const google::protobuf::RepeatedPtrField<v1::ComponentChange>& changes);
[[nodiscard]] std::string AliasPolicyName(v1::AliasPolicy policy);
// {"families": [{"family", "syntax", "available", "processors", "features"}]}
[[nodiscard]] nlohmann::json TargetsJson(const v1::TargetsResponse& response);

}  // namespace qdcache::client
