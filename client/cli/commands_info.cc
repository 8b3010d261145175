#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "client/cli/commands.h"
#include "client/cli/output.h"

namespace qdcache::cli {

int RunStats(client::Client& client, bool json, bool reset) {
  Expected<v1::Stats> stats = client.Stats(reset);
  if (!stats.ok()) return PrintError(stats.status()), kExitFailure;
  const v1::Stats& s = *stats;
  const std::pair<const char*, std::uint64_t> counters[] = {
      {"requests", s.requests()},
      {"compiles", s.compiles()},
      {"hits", s.hits()},
      {"alias_hits", s.alias_hits()},
      {"stage_hits", s.stage_hits()},
      {"misses", s.misses()},
      {"coalesced", s.coalesced()},
      {"errors", s.errors()},
      {"store_artifacts", s.store_artifacts()},
      {"store_aliases", s.store_aliases()},
      {"store_bytes", s.store_bytes()},
      {"stage_entries", s.stage_entries()},
      {"stage_bytes", s.stage_bytes()},
      {"total_bytes", s.total_bytes()},
      {"max_bytes", s.max_bytes()},
      {"evictions", s.evictions()},
      {"evicted_bytes", s.evicted_bytes()},
      {"corrupt_dropped", s.corrupt_dropped()},
      {"store_errors", s.store_errors()},
      {"in_flight", s.in_flight()},
      {"workers", s.workers()},
      {"uptime_seconds", s.uptime_seconds()},
  };
  if (json) {
    nlohmann::json j;
    for (const auto& [name, value] : counters) j[name] = value;
    j["compile_seconds"] = s.compile_seconds();
    j["toolchain"] = s.toolchain();
    j["version"] = s.version();
    std::cout << j.dump() << "\n";
    return kExitOk;
  }
  std::printf("qdcached %s at %s\n", s.version().c_str(), client.target().c_str());
  for (const auto& [name, value] : counters) {
    std::printf("  %-16s %llu\n", name, static_cast<unsigned long long>(value));
  }
  std::printf("  %-16s %.3f\n", "compile_seconds", s.compile_seconds());
  std::printf("  %-16s %s\n", "toolchain", s.toolchain().c_str());
  return kExitOk;
}

int RunPing(client::Client& client, bool json) {
  Status s = client.Ping();
  if (json) {
    std::cout << nlohmann::json{{"target", client.target()}, {"serving", s.ok()}}.dump() << "\n";
  }
  if (!s.ok()) return PrintError(s), kExitFailure;
  if (!json) std::printf("qdcached at %s is serving\n", client.target().c_str());
  return kExitOk;
}

}  // namespace qdcache::cli
