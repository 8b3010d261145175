// Scenario 6: does a hit slow down as the store grows? Two daemons side by
// side, one holding 10 k entries and one holding scale_entries, filled with
// synthetic artifacts (and their fast-key aliases) through the Import RPC,
// then asked for random stored keys in interleaved rounds.
#include <random>

#include "bench/bench_kernels.h"
#include "bench/scenarios.h"
#include "tests/support/kernels.h"
#include "common/digest.h"

namespace qdcache::bench {
namespace {

constexpr std::size_t kSmallStore = 10000;
constexpr std::size_t kPayloadBytes = 1024;
constexpr std::size_t kEntriesPerChunk = 512;

std::string FastKey(std::size_t i) { return "scale-" + std::to_string(i); }

std::string Payload(std::size_t i) {
  std::string bytes(kPayloadBytes, '\0');
  std::uint64_t state = testing::SplitMix64(i ^ 0x5ca1e);
  for (std::size_t k = 0; k < bytes.size(); ++k) {
    if (k % 8 == 0) state = testing::SplitMix64(state);
    bytes[k] = static_cast<char>(state >> (8 * (k % 8)));
  }
  return bytes;
}

// Imports synthetic artifacts [first, end) and their aliases ("bench",
// cpu:x86-64) in one Import call.
Status FillRange(client::Client& client, const std::string& toolchain, std::size_t first, std::size_t end) {
  const std::size_t n = end - first;
  std::size_t next = first;
  QDC_ASSIGN_OR_RETURN(v1::ImportResponse response,
                       client.Import([&](v1::ImportChunk* chunk) -> Expected<bool> {
                         if (next >= end) return false;
                         for (std::size_t k = 0; k < kEntriesPerChunk && next < end; ++k, ++next) {
                           const std::string key = DigestBytes(Sha256("scale:" + std::to_string(next)));
                           v1::BundleArtifact* a = chunk->add_entries()->mutable_artifact();
                           a->set_artifact_key(key);
                           a->set_kind(v1::ARTIFACT_KIND_SHARED_OBJECT);
                           a->set_target("cpu:x86-64");
                           a->set_toolchain(toolchain);
                           a->set_payload(Payload(next));
                           a->set_payload_digest(DigestBytes(Sha256(a->payload())));
                           v1::BundleAlias* alias = chunk->add_entries()->mutable_alias();
                           alias->set_namespace_("bench");
                           alias->set_target("cpu:x86-64");
                           alias->set_fast_key(FastKey(next));
                           alias->set_artifact_key(key);
                         }
                         return true;
                       }));
  if (response.artifacts() != n || response.aliases() != n) {
    return Internal("import stored " + std::to_string(response.artifacts()) + " artifacts and " +
                    std::to_string(response.aliases()) + " aliases of " + std::to_string(n));
  }
  return Status::Ok();
}

// Imports n synthetic artifacts, a bounded number per Import call (each call
// is under one client deadline).
Status Fill(client::Client& client, std::size_t n) {
  constexpr std::size_t kPerCall = 200000;
  QDC_ASSIGN_OR_RETURN(v1::Stats stats, client.Stats());
  for (std::size_t first = 0; first < n; first += kPerCall) {
    QDC_RETURN_IF_ERROR(FillRange(client, stats.toolchain(), first, std::min(n, first + kPerCall)));
  }
  return Status::Ok();
}

Expected<std::unique_ptr<client::Client>> ConnectTo(const testing::DaemonProcess& daemon) {
  client::ClientOptions options;
  options.socket_path = daemon.socket_path();
  options.spawn = false;
  return client::Client::Connect(options);
}

}  // namespace

Status RunScale(BenchEnv& env, Report& report) {
  const char* kScenario = "6 scale";
  const std::size_t sizes[2] = {std::min(kSmallStore, env.options.scale_entries), env.options.scale_entries};
  std::unique_ptr<testing::DaemonProcess> daemons[2];
  std::unique_ptr<client::Client> clients[2];
  double fill_seconds[2] = {0, 0};
  for (int k = 0; k < 2; ++k) {
    QDC_ASSIGN_OR_RETURN(daemons[k], env.StartDaemon(k == 0 ? "scale-small" : "scale-large"));
    QDC_ASSIGN_OR_RETURN(clients[k], ConnectTo(*daemons[k]));
    Status filled;
    fill_seconds[k] = SecondsOf([&] { filled = Fill(*clients[k], sizes[k]); });
    QDC_RETURN_IF_ERROR(filled);
  }
  // A store just bulk-loaded is still flushing and compacting; a long-lived
  // one is not. Measure the latter: wait for both daemons to go quiet.
  double settle_seconds[2] = {0, 0};
  for (int k = 0; k < 2; ++k) {
    QDC_ASSIGN_OR_RETURN(settle_seconds[k], WaitUntilQuiet(daemons[k]->pid(), 0.05,
                                                           std::chrono::milliseconds(500),
                                                           std::chrono::seconds(300)));
    if (settle_seconds[k] >= 300) report.Note(kScenario, "a daemon was still busy after 300 s: measured anyway");
  }
  std::fprintf(stderr, "qdcache-bench: scale: stores filled, measuring\n");
  std::mt19937_64 random(42);
  std::vector<double> micros[2];
  for (int round = 0; round <= env.options.rounds; ++round) {
    for (int k = 0; k < 2; ++k) {
      for (int i = 0; i < env.options.calls_per_round; ++i) {
        const v1::LookupRequest request = LookupOf(FastKey(random() % sizes[k]));
        Expected<v1::LookupResponse> r = Internal("not run");
        const double s = SecondsOf([&] { r = clients[k]->Lookup(request); });
        QDC_RETURN_IF_ERROR(r.status());
        if (r->results_size() != 1 || r->results(0).status() != v1::CACHE_STATUS_ALIAS_HIT) {
          return Internal("a stored key missed");
        }
        if (round > 0) micros[k].push_back(s * 1e6);
      }
    }
  }
  const Summary small = Summarize(micros[0]), large = Summarize(micros[1]);
  report.Add({kScenario, "Lookup hit, random key of " + std::to_string(sizes[0]) + " stored", "us", small});
  report.Add({kScenario, "Lookup hit, random key of " + std::to_string(sizes[1]) + " stored", "us", large});
  report.Compare(kScenario, "p50 at " + std::to_string(sizes[1]) + " / p50 at " + std::to_string(sizes[0]),
                 large.p50, small.p50, 1.2);
  char note[200];
  std::snprintf(note, sizeof(note),
                "filled by Import: %zu entries in %.1f s, %zu in %.1f s (%zu B payloads); "
                "background work settled after %.1f s",
                sizes[0], fill_seconds[0], sizes[1], fill_seconds[1], kPayloadBytes, settle_seconds[1]);
  report.Note(kScenario, note);
  return Status::Ok();
}

}  // namespace qdcache::bench
