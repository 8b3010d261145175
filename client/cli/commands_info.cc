// stats and ping: what the daemon says about itself.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "client/cli/commands.h"
#include "client/cli/output.h"
#include "client/cli/stats_view.h"

namespace qdcache::cli {

int RunStats(client::Client& client, bool json, bool zero) {
  Expected<v1::Stats> stats = client.Stats(zero);
  if (!stats.ok()) return PrintError(stats.status()), kExitFailure;
  if (json) {
    nlohmann::json j = StatsJson(*stats);
    j["zeroed"] = zero;
    PrintJson(j);
    return kExitOk;
  }
  std::fputs(StatsText(*stats, client.target()).c_str(), stdout);
  if (zero) std::printf("\ncounters zeroed (shown as they were before)\n");
  return kExitOk;
}

int RunPing(client::Client& client, bool json) {
  Status s = client.Ping();
  if (json) {
    nlohmann::json j{{"target", client.target()}, {"serving", s.ok()}};
    if (!s.ok()) j["error"] = ErrorJson(s);
    PrintJson(j);
  }
  if (!s.ok()) return PrintError(s), kExitFailure;
  if (!json) std::printf("qdcached at %s is serving\n", client.target().c_str());
  return kExitOk;
}

}  // namespace qdcache::cli
