// Store administration: ls, inspect, evict/trim, verify.
#include <cstdio>
#include <ctime>
#include <nlohmann/json.hpp>

#include "client/cli/commands.h"
#include "client/cli/output.h"
#include "client/cli/progress.h"
#include "common/digest.h"
#include "common/units.h"

namespace qdcache::cli {
namespace {

std::string IsoTime(std::uint64_t unix_ms) {
  std::time_t t = static_cast<std::time_t>(unix_ms / 1000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

nlohmann::json SummaryJson(const v1::EntrySummary& e) {
  return {{"artifact_key", ToHex(e.artifact_key())},
          {"kind", KindName(e.kind())},
          {"target", e.target()},
          {"bytes", e.bytes()},
          {"created", IsoTime(e.created_unix_ms())},
          {"last_access", IsoTime(e.last_access_unix_ms())},
          {"compile_seconds", e.compile_seconds()}};
}

}  // namespace

int RunList(client::Client& client, unsigned limit, bool json) {
  v1::ListRequest request;
  request.set_limit(limit);
  Expected<v1::ListResponse> response = client.List(std::move(request));
  if (!response.ok()) return PrintError(response.status()), kExitFailure;
  if (json) {
    nlohmann::json entries = nlohmann::json::array();
    for (const v1::EntrySummary& e : response->entries()) entries.push_back(SummaryJson(e));
    PrintJson({{"entries", entries}});
    return kExitOk;
  }
  std::printf("%-64s  %-13s  %-22s  %10s  %s\n", "ARTIFACT KEY", "KIND", "TARGET", "BYTES", "LAST ACCESS");
  for (const v1::EntrySummary& e : response->entries()) {
    std::printf("%-64s  %-13s  %-22s  %10llu  %s\n", ToHex(e.artifact_key()).c_str(), KindName(e.kind()).c_str(),
                e.target().c_str(), static_cast<unsigned long long>(e.bytes()),
                IsoTime(e.last_access_unix_ms()).c_str());
  }
  return kExitOk;
}

int RunInspect(client::Client& client, const std::string& key_hex, const std::string& output, bool json) {
  v1::InspectRequest request;
  if (!FromHex(key_hex, request.mutable_artifact_key()) || request.artifact_key().size() != kKeyBytes) {
    return PrintError(InvalidArgument("\"" + key_hex + "\" is not a 64-digit hex artifact key")), kExitUsage;
  }
  Expected<v1::InspectResponse> response = client.Inspect(std::move(request));
  if (!response.ok()) return PrintError(response.status()), kExitFailure;
  const v1::Artifact& a = response->artifact();
  if (!output.empty()) {
    Status s = WriteOutputFile(output, a.payload());
    if (!s.ok()) return PrintError(s), kExitFailure;
  }
  if (json) {
    const std::string created = IsoTime(a.created_unix_ms());
    v1::CompileResult as_result;  // the compile result's JSON shape (moved: no payload copy)
    as_result.set_status(v1::CACHE_STATUS_HIT);
    *as_result.mutable_artifact() = std::move(*response->mutable_artifact());
    nlohmann::json j = ResultJson(as_result);
    j.erase("status");
    j["created"] = created;
    PrintJson(j);
    return kExitOk;
  }
  std::printf("artifact_key     %s\n", ToHex(a.artifact_key()).c_str());
  std::printf("kind             %s\n", KindName(a.kind()).c_str());
  std::printf("target           %s\n", a.target().c_str());
  std::printf("size             %zu\n", a.payload().size());
  std::printf("payload_digest   %s\n", ToHex(a.payload_digest()).c_str());
  std::printf("toolchain        %s\n", a.toolchain().c_str());
  std::printf("created          %s\n", IsoTime(a.created_unix_ms()).c_str());
  std::printf("compile_seconds  %.4f\n", a.timings().total_seconds());
  for (const v1::EntryMetadata& e : a.entries()) {
    std::printf("entry            %s  registers=%d shared=%d local=%d max_threads=%d\n", e.name().c_str(),
                e.registers(), e.shared_bytes(), e.local_bytes(), e.max_threads_per_block());
  }
  if (!a.compile_log().empty()) std::printf("log:\n%s\n", a.compile_log().c_str());
  return kExitOk;
}

int RunEvict(client::Client& client, const std::string& older_than, const std::string& max_size, bool json) {
  v1::EvictRequest request;
  if (!older_than.empty()) {
    Expected<std::chrono::seconds> age = ParseDuration(older_than);
    if (!age.ok()) return PrintError(age.status().WithContext("--older-than")), kExitUsage;
    request.set_older_than_seconds(static_cast<std::uint64_t>(age->count()));
  } else {
    Expected<std::uint64_t> bytes = ParseByteSize(max_size);
    if (!bytes.ok()) return PrintError(bytes.status().WithContext("--max-size")), kExitUsage;
    request.set_trim_to_bytes(*bytes);
  }
  Expected<v1::EvictResponse> response = client.Evict(std::move(request));
  if (!response.ok()) return PrintError(response.status()), kExitFailure;
  if (json) {
    PrintJson({{"evicted_entries", response->entries()}, {"evicted_bytes", response->bytes()}});
  } else {
    std::printf("evicted %llu entries, %llu bytes\n", static_cast<unsigned long long>(response->entries()),
                static_cast<unsigned long long>(response->bytes()));
  }
  return kExitOk;
}

int RunVerify(client::Client& client, bool json) {
  // One unary call: nothing to count while it runs, so the elapsed time.
  Expected<v1::VerifyResponse> response = [&] {
    Progress progress("verifying", 0);
    ElapsedTicker ticker(progress);
    return client.Verify();
  }();
  if (!response.ok()) return PrintError(response.status()), kExitFailure;
  if (json) {
    nlohmann::json dropped = nlohmann::json::array();
    for (const std::string& k : response->dropped_keys()) dropped.push_back(ToHex(k));
    PrintJson({{"checked", response->checked()},
               {"dropped", response->dropped()},
               {"dropped_keys", dropped}});
  } else {
    std::printf("checked %llu entries, dropped %llu bad ones\n",
                static_cast<unsigned long long>(response->checked()),
                static_cast<unsigned long long>(response->dropped()));
    for (const std::string& k : response->dropped_keys()) std::printf("  dropped %s\n", ToHex(k).c_str());
  }
  return kExitOk;
}

}  // namespace qdcache::cli
