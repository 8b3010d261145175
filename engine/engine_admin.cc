// Store administration through the engine: list, inspect, evict, verify,
// export and import.
#include <spdlog/spdlog.h>

#include "common/digest.h"
#include "common/units.h"
#include "engine/artifact_record.h"
#include "engine/engine.h"

namespace qdcache::engine {

namespace {

v1::EntrySummary ToWire(const store::EntrySummary& e) {
  v1::EntrySummary w;
  w.set_artifact_key(e.key);
  w.set_kind(static_cast<v1::ArtifactKind>(e.kind));
  w.set_target(e.target);
  w.set_toolchain(e.toolchain);
  w.set_bytes(e.bytes);
  w.set_created_unix_ms(e.created_unix_ms);
  w.set_last_access_unix_ms(e.last_access_unix_ms);
  w.set_compile_seconds(static_cast<double>(e.compile_micros) / 1e6);
  return w;
}

}  // namespace

Expected<v1::ListResponse> Engine::List(std::size_t limit) {
  QDC_ASSIGN_OR_RETURN(std::vector<store::EntrySummary> entries, store_.List(limit));
  v1::ListResponse out;
  for (const store::EntrySummary& e : entries) *out.add_entries() = ToWire(e);
  return out;
}

Expected<v1::Artifact> Engine::Inspect(const std::string& artifact_key, bool include_ptx) {
  if (artifact_key.size() != kKeyBytes) return InvalidArgument("an artifact key is 32 bytes (64 hex digits)");
  QDC_ASSIGN_OR_RETURN(std::optional<store::ArtifactRecord> record, store_.Get(artifact_key));
  if (!record) return NotFound("no artifact " + ToHex(artifact_key) + " in the store");
  v1::Artifact out;
  QDC_RETURN_IF_ERROR(ToWireArtifact(*record, include_ptx, &out));
  return out;
}

Expected<v1::EvictResponse> Engine::Evict(const v1::EvictRequest& request) {
  store::EvictionResult result;
  switch (request.policy_case()) {
    case v1::EvictRequest::kOlderThanSeconds: {
      // Past kMaxDuration (a century) nothing is that old; the cap keeps the
      // unit conversions below from overflowing.
      if (request.older_than_seconds() > static_cast<std::uint64_t>(kMaxDuration.count())) {
        return InvalidArgument("older_than_seconds " + std::to_string(request.older_than_seconds()) +
                               " is more than a century");
      }
      QDC_ASSIGN_OR_RETURN(result, store_.EvictOlderThan(std::chrono::seconds(request.older_than_seconds())));
      break;
    }
    case v1::EvictRequest::kTrimToBytes: {
      QDC_ASSIGN_OR_RETURN(result, store_.TrimTo(request.trim_to_bytes()));
      break;
    }
    default:
      return InvalidArgument("evict needs older_than_seconds or trim_to_bytes");
  }
  spdlog::info("evicted {} entries ({} bytes) on request", result.entries, result.bytes);
  v1::EvictResponse out;
  out.set_entries(result.entries);
  out.set_bytes(result.bytes);
  return out;
}

Expected<v1::VerifyResponse> Engine::Verify() {
  QDC_ASSIGN_OR_RETURN(store::VerifyResult result, store_.Verify());
  spdlog::info("verify: {} checked, {} dropped", result.checked, result.dropped);
  v1::VerifyResponse out;
  out.set_checked(result.checked);
  out.set_dropped(result.dropped);
  for (const std::string& k : result.dropped_keys) out.add_dropped_keys(k);
  return out;
}

Expected<std::unique_ptr<BundleExporter>> Engine::StartExport(ExportScope scope) {
  store::AliasScope aliases{scope.tenant, scope.ns};
  QDC_ASSIGN_OR_RETURN(std::unique_ptr<store::StoreSnapshot> snapshot, store_.OpenSnapshot(aliases));
  return std::make_unique<BundleExporter>(std::move(snapshot), std::move(scope));
}

std::unique_ptr<BundleImporter> Engine::StartImport(const std::string& tenant, bool keep_tenants) {
  return std::make_unique<BundleImporter>(store_, ImportOptions{tenant, keep_tenants, toolchain_, config_.limits});
}

void Engine::ResetStats() {
  for (std::atomic<std::uint64_t>* counter :
       {&compiles_, &hits_, &alias_hits_, &misses_, &coalesced_, &errors_, &requests_, &store_errors_,
        &compile_micros_, &stage_hits_, &cancelled_, &remembered_failures_, &queue_rejections_,
        &artifact_misses_, &stage_misses_, &compile_micros_saved_, &budget_refusals_}) {
    counter->store(0);
  }
  budget_.ResetStats();
  spdlog::info("engine counters reset on request");
}

}  // namespace qdcache::engine
