// Store administration through the engine: list, inspect, evict, verify,
// export and import.
#include <spdlog/spdlog.h>

#include <cctype>
#include <optional>
#include <set>

#include "common/digest.h"
#include "common/target.h"
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
  w.set_payload_bytes(e.payload_bytes);
  return w;
}

struct ListFilter {
  std::string target;      // canonical; empty: any
  std::string key_prefix;  // lowercase hex digits; empty: any
};

Expected<ListFilter> MakeListFilter(const v1::ListRequest& request) {
  ListFilter filter;
  if (!request.target().empty()) {
    Expected<Target> target = ParseTarget(request.target());
    if (target.ok()) target = NormalizeTarget(std::move(target).value());
    if (!target.ok()) return target.status().WithContext("list target");
    filter.target = target->ToString();
  }
  for (char c : request.key_prefix()) {
    const char lower = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (!std::isxdigit(static_cast<unsigned char>(c))) {
      return InvalidArgument("key prefix \"" + request.key_prefix() + "\" is not hex digits");
    }
    filter.key_prefix.push_back(lower);
  }
  if (filter.key_prefix.size() > 2 * kKeyBytes) {
    return InvalidArgument("key prefix \"" + request.key_prefix() + "\" is longer than an artifact key");
  }
  return filter;
}

// Whether the hex spelling of raw `key` starts with `hex_prefix`.
bool HasHexPrefix(const std::string& key, const std::string& hex_prefix) {
  return ToHex(key).compare(0, hex_prefix.size(), hex_prefix) == 0;
}

}  // namespace

Expected<v1::ListResponse> Engine::List(const v1::ListRequest& request, const std::string& tenant) {
  QDC_ASSIGN_OR_RETURN(ListFilter filter, MakeListFilter(request));
  v1::ListResponse out;
  const std::size_t limit = request.limit();
  // The namespace's aliases: listed themselves, or naming the artifacts listed.
  std::optional<std::set<std::string>> named;
  if (request.aliases() || request.has_namespace_()) {
    store::AliasScope scope{tenant, request.has_namespace_() ? std::optional<std::string>(request.namespace_())
                                                             : std::nullopt};
    QDC_ASSIGN_OR_RETURN(std::unique_ptr<store::StoreSnapshot> snapshot, store_.OpenSnapshot(scope));
    named.emplace();
    for (;;) {
      QDC_ASSIGN_OR_RETURN(std::optional<store::StoredAlias> alias, snapshot->NextAlias());
      if (!alias) break;
      if (!filter.target.empty() && alias->alias.target != filter.target) continue;
      if (!HasHexPrefix(alias->key, filter.key_prefix)) continue;
      named->insert(alias->key);
      if (!request.aliases() || (limit != 0 && static_cast<std::size_t>(out.aliases_size()) >= limit)) continue;
      v1::AliasSummary* a = out.add_aliases();
      a->set_namespace_(alias->alias.ns);
      a->set_target(alias->alias.target);
      a->set_fast_key(alias->alias.fast_key);
      a->set_artifact_key(alias->key);
    }
    if (request.aliases()) return out;
  }
  const bool filtered = !filter.target.empty() || !filter.key_prefix.empty() || named.has_value();
  QDC_ASSIGN_OR_RETURN(std::vector<store::EntrySummary> entries, store_.List(filtered ? 0 : limit));
  for (const store::EntrySummary& e : entries) {
    if (limit != 0 && static_cast<std::size_t>(out.entries_size()) >= limit) break;
    if (!filter.target.empty() && e.target != filter.target) continue;
    if (!HasHexPrefix(e.key, filter.key_prefix)) continue;
    if (named && named->count(e.key) == 0) continue;
    *out.add_entries() = ToWire(e);
  }
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
  const bool dry = request.dry_run();
  switch (request.policy_case()) {
    case v1::EvictRequest::kOlderThanSeconds: {
      // Past kMaxDuration (a century) nothing is that old; the cap keeps the
      // unit conversions below from overflowing.
      if (request.older_than_seconds() > static_cast<std::uint64_t>(kMaxDuration.count())) {
        return InvalidArgument("older_than_seconds " + std::to_string(request.older_than_seconds()) +
                               " is more than a century");
      }
      const std::chrono::seconds age(request.older_than_seconds());
      QDC_ASSIGN_OR_RETURN(result, dry ? store_.PlanEvictOlderThan(age) : store_.EvictOlderThan(age));
      break;
    }
    case v1::EvictRequest::kTrimToBytes:
    case v1::EvictRequest::kEverything: {
      if (request.policy_case() == v1::EvictRequest::kEverything && !request.everything()) {
        return InvalidArgument("evict: everything must be true when set");
      }
      const std::uint64_t to = request.policy_case() == v1::EvictRequest::kEverything ? 0 : request.trim_to_bytes();
      QDC_ASSIGN_OR_RETURN(result, dry ? store_.PlanTrimTo(to) : store_.TrimTo(to));
      break;
    }
    default:
      return InvalidArgument("evict needs older_than_seconds, trim_to_bytes or everything");
  }
  spdlog::info("{} {} entries ({} bytes) on request", dry ? "would evict" : "evicted", result.entries,
               result.bytes);
  v1::EvictResponse out;
  out.set_dry_run(dry);
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
  return std::make_unique<BundleImporter>(
      store_, ImportOptions{tenant, keep_tenants, toolchain_, config_.limits, config_.import_signatures});
}

void Engine::ResetStats() {
  for (std::atomic<std::uint64_t>* counter :
       {&compiles_, &hits_, &alias_hits_, &misses_, &coalesced_, &errors_, &requests_, &store_errors_,
        &compile_micros_, &stage_hits_, &cancelled_, &remembered_failures_, &queue_rejections_,
        &artifact_misses_, &stage_misses_, &compile_micros_saved_, &budget_refusals_, &alias_conflicts_,
        &alias_stale_, &fleet_leases_, &fleet_waits_count_, &fleet_wait_hits_, &fleet_wait_timeouts_,
        &fleet_wait_orphans_, &alias_hits_replayed_}) {
    counter->store(0);
  }
  budget_.ResetStats();
  spdlog::info("engine counters reset on request");
}

}  // namespace qdcache::engine
