#include "tests/crash/crash_check.h"

#include <algorithm>
#include <map>

#include "common/digest.h"

namespace qdcache::crash {
namespace {

constexpr std::size_t kBatch = 64;

std::string Describe(const Acknowledged& a) {
  return std::string(a.spec.cuda ? "cuda" : "cpu") + " kernel " + std::to_string(a.spec.id) +
         " (round " + std::to_string(a.round) + ")";
}

// Guaranteed entries must be `want` with their bytes; the others may also
// have gone (an alias then misses, a compile compiles again) but never come
// back with other bytes. Counts the recompiled ones in *recompiled.
void CheckArtifact(const Acknowledged& a, const v1::CompileResult& r, v1::CacheStatus want,
                   std::vector<std::string>* violations, int* recompiled) {
  const bool as_acked = r.status() == want && Carries(r, a);
  const bool recompiles = r.status() == v1::CACHE_STATUS_COMPILED || r.status() == v1::CACHE_STATUS_STAGE_HIT;
  const bool gone = want == v1::CACHE_STATUS_ALIAS_HIT ? r.status() == v1::CACHE_STATUS_MISS
                                                       : recompiles && Carries(r, a);
  if (as_acked) return;
  if (!a.guaranteed && gone) {
    if (recompiles) ++*recompiled;
    return;
  }
  violations->push_back(Describe(a) + (a.guaranteed ? "" : " (not guaranteed)") + ": expected " +
                        v1::CacheStatus_Name(want) + " of key " + ToHex(a.key) + " payload sha256 " +
                        a.payload_sha256 + ", got " + Summary(r));
}

void CheckAliases(client::Client& client, const std::vector<Acknowledged>& acked,
                  std::vector<std::string>* violations) {
  int unused = 0;
  std::vector<const Acknowledged*> aliased;
  for (const Acknowledged& a : acked) {
    if (a.spec.fast_key) aliased.push_back(&a);
  }
  for (std::size_t begin = 0; begin < aliased.size(); begin += kBatch) {
    const std::size_t end = std::min(aliased.size(), begin + kBatch);
    v1::LookupRequest request;
    for (std::size_t i = begin; i < end; ++i) {
      v1::FastKeyQuery* q = request.add_queries();
      q->set_fast_key(FastKeyOf(aliased[i]->spec.id));
      q->set_namespace_(kNamespace);
      *q->mutable_target() = TargetOf(aliased[i]->spec);
    }
    Expected<v1::LookupResponse> response = client.Lookup(std::move(request));
    if (!response.ok() || response->results_size() != static_cast<int>(end - begin)) {
      violations->push_back("lookup failed: " + response.status().ToString());
      return;
    }
    for (std::size_t i = begin; i < end; ++i) {
      CheckArtifact(*aliased[i], response->results(static_cast<int>(i - begin)),
                    v1::CACHE_STATUS_ALIAS_HIT, violations, &unused);
    }
  }
}

void CheckHits(client::Client& client, const std::vector<Acknowledged>& acked,
               std::vector<std::string>* violations, int* recompiled) {
  for (std::size_t begin = 0; begin < acked.size(); begin += kBatch) {
    const std::size_t end = std::min(acked.size(), begin + kBatch);
    v1::CompileRequest request;
    for (std::size_t i = begin; i < end; ++i)
      *request.add_kernels() = KernelDescriptorOf(acked[i].spec);
    Expected<v1::CompileResponse> response = client.Compile(std::move(request));
    if (!response.ok() || response->results_size() != static_cast<int>(end - begin)) {
      violations->push_back("compile failed: " + response.status().ToString());
      return;
    }
    for (std::size_t i = begin; i < end; ++i) {
      CheckArtifact(acked[i], response->results(static_cast<int>(i - begin)), v1::CACHE_STATUS_HIT,
                    violations, recompiled);
    }
  }
}

}  // namespace

std::vector<std::string> CheckServedBack(testing::DaemonProcess& daemon,
                                         const std::vector<Acknowledged>& acked, bool damaged) {
  std::vector<std::string> violations;
  std::unique_ptr<client::Client> client = daemon.Connect();
  // Aliases first: the compile requests below would rewrite missing ones.
  CheckAliases(*client, acked, &violations);
  int recompiled = 0;
  CheckHits(*client, acked, &violations, &recompiled);

  Expected<v1::VerifyResponse> verify = client->Verify();
  if (!verify.ok()) {
    violations.push_back("verify failed: " + verify.status().ToString());
  } else if (verify->dropped() != 0 && !damaged) {
    violations.push_back("verify dropped " + std::to_string(verify->dropped()) + " of " +
                         std::to_string(verify->checked()) + " entries");
  }
  Expected<v1::Stats> stats = client->Stats();
  if (!stats.ok()) {
    violations.push_back("stats failed: " + stats.status().ToString());
  } else if (stats->compiles() != static_cast<std::uint64_t>(recompiled) || stats->store_errors() != 0 ||
             stats->errors() != 0 || (stats->corrupt_dropped() != 0 && !damaged)) {
    violations.push_back("unexpected stats after restart (" + std::to_string(recompiled) +
                         " entries not guaranteed were compiled again): " + stats->ShortDebugString());
  }
  return violations;
}

}  // namespace qdcache::crash
