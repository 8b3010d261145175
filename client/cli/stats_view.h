// How `qdcache stats` shows the daemon's counters: a per-level view of hits
// and misses (alias, artifact, stage, remote), and every field of v1::Stats
// (fields added to the proto show up without touching the CLI).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "qdcache/v1/qdcache.pb.h"

namespace qdcache::cli {

struct CacheLevel {
  std::string name;  // "alias", "artifact", "stage", "remote"
  std::uint64_t hits = 0;
  std::uint64_t misses = 0;
  bool enabled = true;  // false: remote with remote_state "off"

  // hits / (hits + misses); nullopt before any lookup at this level.
  [[nodiscard]] std::optional<double> hit_rate() const;
};

// alias (alias_hits / misses), artifact (hits / artifact_misses), stage
// (stage_hits / stage_misses), remote (remote_hits / remote_misses).
[[nodiscard]] std::vector<CacheLevel> CacheLevels(const v1::Stats& stats);

// Every field by its proto name, plus "levels": {"alias": {"hits", "misses",
// "hit_rate" (null before any lookup), "enabled"}, ...}.
[[nodiscard]] nlohmann::json StatsJson(const v1::Stats& stats);

// The human view, aligned in columns; `target` is where the daemon was
// reached ("unix:/run/user/1000/qdcached.sock").
[[nodiscard]] std::string StatsText(const v1::Stats& stats, const std::string& target);

}  // namespace qdcache::cli
