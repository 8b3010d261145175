#include "client/cli/stats_view.h"

#include <chrono>
#include <cstdio>
#include <set>

#include "client/cli/progress.h"
#include "client/proto_json.h"

namespace qdcache::cli {
namespace {

std::string Count(std::uint64_t n) { return std::to_string(n); }

std::string Seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f s", s);
  return buf;
}

std::string Percent(std::optional<double> fraction) {
  if (!fraction) return "-";
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.1f%%", *fraction * 100);
  return buf;
}

// Wide enough for every field name of Stats ("worker_kills_cancelled").
constexpr int kNameWidth = 24;

// Lines of "  name   value" under a heading, names padded to one column.
class Section {
 public:
  explicit Section(std::string* out) : out_(out) {}
  void Row(const std::string& name, const std::string& value) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "  %-*s ", kNameWidth, name.c_str());
    *out_ += buf + value + "\n";
  }

 private:
  std::string* out_;
};

}  // namespace

std::string StatsText(const v1::Stats& s, const std::string& target) {
  // The fields shown by name below; every other one is listed at the end.
  const std::set<std::string> shown = {"version",
                                       "artifact_hits",  // = hits
                                       "alias_misses",   // = misses
                                       "toolchain",
                                       "uptime_seconds",
                                       "workers",
                                       "workers_live",
                                       "alias_hits",
                                       "misses",
                                       "hits",
                                       "artifact_misses",
                                       "stage_hits",
                                       "stage_misses",
                                       "remote_hits",
                                       "remote_misses",
                                       "remote_state",
                                       "compiles",
                                       "coalesced",
                                       "errors",
                                       "in_flight",
                                       "compile_seconds",
                                       "compile_seconds_saved",
                                       "evictions",
                                       "evicted_bytes",
                                       "store_artifacts",
                                       "store_aliases",
                                       "store_bytes",
                                       "stage_entries",
                                       "stage_bytes",
                                       "total_bytes",
                                       "max_bytes",
                                       "memory_cache_entries",
                                       "alias_hits_replayed",
                                       "memory_cache_bytes",
                                       "remote_read_only",
                                       "remote_backfill",
                                       "remote_max_share_bytes",
                                       "remote_min_share_compile_ms",
                                       "remote_not_shared_large",
                                       "remote_not_shared_cheap",
                                       "remote_untrusted",
                                       "signing_key",
                                       "trusted_keys",
                                       "signatures_required",
                                       "fleet_leases",
                                       "fleet_waits",
                                       "fleet_wait_hits",
                                       "fleet_wait_timeouts",
                                       "fleet_wait_orphans"};
  std::string out = "qdcached " + s.version() + " at " + target + "\n";
  Section daemon(&out);
  daemon.Row("uptime", HumanDuration(std::chrono::seconds(s.uptime_seconds())));
  daemon.Row("workers", Count(s.workers()) + " (" + Count(s.workers_live()) + " live)");
  daemon.Row("toolchain", s.toolchain());

  char row[128];
  std::snprintf(row, sizeof row, "\n  %-*s %12s %12s %9s\n", kNameWidth, "cache level", "hits",
                "misses", "hit rate");
  out += row;
  for (const CacheLevel& level : CacheLevels(s)) {
    if (!level.enabled) {
      std::snprintf(row, sizeof row, "  %-*s %12s %12s %9s   (remote %s)\n", kNameWidth,
                    level.name.c_str(), "-", "-", "-",
                    s.remote_state().empty() ? "off" : s.remote_state().c_str());
    } else {
      std::snprintf(row, sizeof row, "  %-*s %12llu %12llu %9s%s\n", kNameWidth, level.name.c_str(),
                    static_cast<unsigned long long>(level.hits),
                    static_cast<unsigned long long>(level.misses),
                    Percent(level.hit_rate()).c_str(),
                    level.name == "remote" ? ("   (" + s.remote_state() + ")").c_str() : "");
    }
    out += row;
  }

  out += "\ncompiles\n";
  Section compiles(&out);
  compiles.Row("compiled", Count(s.compiles()));
  compiles.Row("coalesced", Count(s.coalesced()));
  compiles.Row("errors", Count(s.errors()));
  compiles.Row("in flight", Count(s.in_flight()));
  compiles.Row("compile time", Seconds(s.compile_seconds()));
  compiles.Row("saved by hits", Seconds(s.compile_seconds_saved()));

  out += "\nstore\n";
  Section store(&out);
  std::string size = HumanBytes(s.total_bytes());
  if (s.max_bytes() > 0) {
    char pct[32];
    std::snprintf(
        pct, sizeof pct, " (%.1f%%)",
        100.0 * static_cast<double>(s.total_bytes()) / static_cast<double>(s.max_bytes()));
    size += " of " + HumanBytes(s.max_bytes()) + " cap" + pct;
  } else {
    size += ", no cap";
  }
  store.Row("size", size);
  store.Row("artifacts", Count(s.store_artifacts()) + " (" + HumanBytes(s.store_bytes()) + ")");
  store.Row("aliases", Count(s.store_aliases()));
  store.Row("stages", Count(s.stage_entries()) + " (" + HumanBytes(s.stage_bytes()) + ")");
  store.Row("memory cache",
            Count(s.memory_cache_entries()) + " (" + HumanBytes(s.memory_cache_bytes()) + ")");
  store.Row("hits answered again", Count(s.alias_hits_replayed()) + " (kept answers, --answer-cache)");
  store.Row("evictions", Count(s.evictions()) + " (" + HumanBytes(s.evicted_bytes()) + ")");

  if (s.has_remote_backfill()) {  // a daemon with a remote, of a release that reports its policy
    out += "\nshared tier policy\n";
    Section remote(&out);
    remote.Row("writes", s.remote_read_only() ? "none (read-only)" : "write-through");
    remote.Row("back-fill", s.remote_backfill() ? "on (remote hits kept locally)" : "off");
    remote.Row("largest shared", HumanBytes(s.remote_max_share_bytes()));  // never 0: capped by the daemon
    remote.Row("quickest shared", s.remote_min_share_compile_ms() == 0
                                      ? "any compile"
                                      : std::to_string(s.remote_min_share_compile_ms()) + " ms of compile");
    remote.Row("kept local", Count(s.remote_not_shared_large()) + " too large, " +
                                 Count(s.remote_not_shared_cheap()) + " too quick to compile");
    if (!s.remote_read_only()) {
      remote.Row("writes signed by", s.signing_key().empty() ? "nobody (unsigned)" : s.signing_key());
    }
    remote.Row("fleet single-flight", Count(s.fleet_leases()) + " leases taken, " + Count(s.fleet_waits()) +
                                          " waits (" + Count(s.fleet_wait_hits()) + " served, " +
                                          Count(s.fleet_wait_orphans()) + " orphaned, " +
                                          Count(s.fleet_wait_timeouts()) + " timed out)");
  }
  if (s.has_remote_backfill() || s.trusted_keys_size() > 0) {
    out += "\nsigned entries (remote reads and imports)\n";
    Section signing(&out);
    std::string keys;
    for (const std::string& id : s.trusted_keys()) keys += (keys.empty() ? "" : ", ") + id;
    signing.Row("trusted keys", keys.empty() ? "none: entries are not checked (unauthenticated)" : keys);
    if (!keys.empty()) {
      signing.Row("unsigned entries", s.signatures_required() ? "refused" : "accepted (signatures not required)");
    }
    if (s.has_remote_backfill()) signing.Row("untrusted refused", Count(s.remote_untrusted()));
  }

  out += "\nother counters\n";
  Section other(&out);
  const nlohmann::json all = client::ProtoToJson(s);
  for (const auto& [name, value] : all.items()) {
    if (shown.count(name) > 0) continue;
    other.Row(name, value.is_string() ? value.get<std::string>() : value.dump());
  }
  return out;
}

}  // namespace qdcache::cli
