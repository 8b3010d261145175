// warm: compile a manifest's kernels through the cache before jobs need them.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>

#include "client/cli/commands.h"
#include "client/cli/output.h"
#include "client/cli/progress.h"
#include "client/cli/warm.h"

namespace qdcache::cli {
namespace {

const v1::CacheStatus kReportedStatuses[] = {v1::CACHE_STATUS_COMPILED, v1::CACHE_STATUS_COALESCED,
                                             v1::CACHE_STATUS_HIT, v1::CACHE_STATUS_STAGE_HIT,
                                             v1::CACHE_STATUS_ALIAS_HIT};

std::string ManifestName(const WarmArgs& args) {
  return args.manifest == "-" ? "<stdin>" : args.manifest;
}

std::string ProgressDetail(const WarmCounts& c, std::size_t total) {
  return std::to_string(c.done) + "/" + std::to_string(total) +
         " kernels: " + std::to_string(c.compiled) + " compiled, " + std::to_string(c.cached) +
         " already cached, " + std::to_string(c.failed) + " failed";
}

}  // namespace

std::optional<std::vector<ManifestEntry>> LoadManifest(const WarmArgs& args, int* exit_code) {
  std::string text;
  std::filesystem::path base_dir = std::filesystem::current_path();
  if (Status read = ReadFile(args.manifest, &text); !read.ok()) {
    PrintError(read);
    *exit_code = kExitFailure;
    return std::nullopt;
  }
  if (args.manifest != "-") base_dir = std::filesystem::absolute(args.manifest).parent_path();
  Expected<std::vector<ManifestEntry>> entries = ParseManifest(text, ManifestName(args), base_dir);
  if (!entries.ok()) {
    PrintError(entries.status());
    *exit_code = kExitUsage;
    return std::nullopt;
  }
  return std::move(entries).value();
}

int RunWarm(client::Client& client, const WarmArgs& args,
            const std::vector<ManifestEntry>& entries) {
  const auto started = std::chrono::steady_clock::now();
  std::vector<WarmOutcome> outcomes;
  {
    Progress progress("warming", entries.size());
    outcomes = Warm(client, entries, WarmOptions{args.batch, args.jobs, args.call_deadline}, [&](const WarmCounts& c) {
      if (progress.enabled()) progress.Update(c.done, ProgressDetail(c, entries.size()));
    });
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  std::map<v1::CacheStatus, std::uint64_t> by_status;
  std::uint64_t compiled = 0, cached = 0, failed = 0, not_sent = 0;
  nlohmann::json failures = nlohmann::json::array();
  std::string failure_lines;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const WarmOutcome& o = outcomes[i];
    const ManifestEntry& e = entries[i];
    if (!o.attempted) {
      ++not_sent;
    } else if (!o.error.ok()) {
      ++failed;
      failures.push_back({{"line", e.line},
                          {"ir", e.ir_path},
                          {"target", e.target},
                          {"error", ErrorJson(o.error)}});
      failure_lines += "  " + ManifestName(args) + ":" + std::to_string(e.line) + ": " + e.ir_path +
                       " (" + e.target + "): " + o.error.ToString() + "\n";
    } else {
      ++by_status[o.status];
      (CountsAsCompiled(o.status) ? compiled : cached) += 1;
    }
  }
  if (args.json) {
    nlohmann::json statuses = nlohmann::json::object();
    for (v1::CacheStatus s : kReportedStatuses) statuses[CacheStatusName(s)] = by_status[s];
    PrintJson({{"manifest", ManifestName(args)},
               {"total", entries.size()},
               {"compiled", compiled},
               {"cached", cached},
               {"failed", failed},
               {"not_sent", not_sent},
               {"statuses", statuses},
               {"failures", failures},
               {"seconds", seconds}});
  } else {
    std::printf(
        "warmed %zu kernels in %.1f s: %llu compiled, %llu already cached (%llu hit, %llu "
        "stage_hit, "
        "%llu alias_hit), %llu failed%s\n",
        entries.size(), seconds, static_cast<unsigned long long>(compiled),
        static_cast<unsigned long long>(cached),
        static_cast<unsigned long long>(by_status[v1::CACHE_STATUS_HIT]),
        static_cast<unsigned long long>(by_status[v1::CACHE_STATUS_STAGE_HIT]),
        static_cast<unsigned long long>(by_status[v1::CACHE_STATUS_ALIAS_HIT]),
        static_cast<unsigned long long>(failed),
        not_sent > 0 ? (", " + std::to_string(not_sent) + " not sent").c_str() : "");
    if (failed > 0) std::printf("failed:\n%s", failure_lines.c_str());
  }
  if (not_sent > 0) {
    std::fprintf(stderr, "qdcache: warm stopped after a call failed: %llu kernels not sent\n",
                 static_cast<unsigned long long>(not_sent));
  }
  return failed > 0 || not_sent > 0 ? kExitFailure : kExitOk;
}

}  // namespace qdcache::cli
