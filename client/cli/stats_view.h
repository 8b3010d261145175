// How `qdcache stats` shows the daemon's counters: a per-level view of hits
// and misses (alias, artifact, stage, remote), and every field of v1::Stats
// (fields added to the proto show up without touching the CLI).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "client/json_views.h"
#include "qdcache/v1/qdcache.pb.h"

namespace qdcache::cli {

using client::CacheLevel;
using client::CacheLevels;
using client::StatsJson;

// The human view, aligned in columns; `target` is where the daemon was
// reached ("unix:/run/user/1000/qdcached.sock").
[[nodiscard]] std::string StatsText(const v1::Stats& stats, const std::string& target);

}  // namespace qdcache::cli
