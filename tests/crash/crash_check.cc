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

void CheckArtifact(const Acknowledged& a, const v1::CompileResult& r, v1::CacheStatus want,
                   std::vector<std::string>* violations) {
  if (r.status() != want || !r.has_artifact()) {
    violations->push_back(Describe(a) + ": expected " + v1::CacheStatus_Name(want) + " of key " +
                          ToHex(a.key) + ", got " + Summary(r));
  } else if (r.artifact().artifact_key() != a.key) {
    violations->push_back(Describe(a) + ": served under another key");
  } else if (Sha256Hex(r.artifact().payload()) != a.payload_sha256) {
    violations->push_back(Describe(a) + ": bytes differ from the acknowledged ones");
  }
}

void CheckAliases(client::Client& client, const std::vector<Acknowledged>& acked,
                  std::vector<std::string>* violations) {
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
                    v1::CACHE_STATUS_ALIAS_HIT, violations);
    }
  }
}

void CheckHits(client::Client& client, const std::vector<Acknowledged>& acked,
               std::vector<std::string>* violations) {
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
                    violations);
    }
  }
}

}  // namespace

std::vector<std::string> CheckServedBack(testing::DaemonProcess& daemon,
                                         const std::vector<Acknowledged>& acked) {
  std::vector<std::string> violations;
  std::unique_ptr<client::Client> client = daemon.Connect();
  // Aliases first: the compile requests below would rewrite missing ones.
  CheckAliases(*client, acked, &violations);
  CheckHits(*client, acked, &violations);

  Expected<v1::VerifyResponse> verify = client->Verify();
  if (!verify.ok()) {
    violations.push_back("verify failed: " + verify.status().ToString());
  } else if (verify->dropped() != 0) {
    violations.push_back("verify dropped " + std::to_string(verify->dropped()) + " of " +
                         std::to_string(verify->checked()) + " entries");
  }
  Expected<v1::Stats> stats = client->Stats();
  if (!stats.ok()) {
    violations.push_back("stats failed: " + stats.status().ToString());
  } else if (stats->compiles() != 0 || stats->corrupt_dropped() != 0 ||
             stats->store_errors() != 0 || stats->errors() != 0) {
    violations.push_back("unexpected stats after restart: " + stats->ShortDebugString());
  }
  return violations;
}

}  // namespace qdcache::crash
