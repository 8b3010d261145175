// Fast-key integrity: alias conflicts and their policy, dependency
// manifests kept with aliases, and miss reasons from kernel lineages
// (docs/integration.md, "Fast keys").
#include <spdlog/spdlog.h>

#include <algorithm>

#include "common/digest.h"
#include "common/utf8.h"
#include "engine/artifact_record.h"
#include "engine/component_diff.h"
#include "engine/engine.h"
#include "store/record_codec.h"

namespace qdcache::engine {
namespace {

// Strictness order of the policies: OFF < REBIND < STRICT.
int Rank(v1::AliasPolicy policy) {
  switch (policy) {
    case v1::ALIAS_POLICY_OFF:
      return 0;
    case v1::ALIAS_POLICY_STRICT:
      return 2;
    default:
      return 1;
  }
}

std::uint64_t NowUnixMs() {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                        std::chrono::system_clock::now().time_since_epoch())
                                        .count());
}

}  // namespace

v1::AliasPolicy Engine::EffectivePolicy(v1::AliasPolicy requested) const {
  if (requested == v1::ALIAS_POLICY_UNSPECIFIED) requested = v1::ALIAS_POLICY_REBIND;
  return Rank(requested) >= Rank(config_.alias_policy_floor) ? requested : config_.alias_policy_floor;
}

void Engine::Notify(std::string_view ns, AliasEvent event) {
  (event == AliasEvent::kConflict ? alias_conflicts_ : alias_stale_)++;
  if (config_.on_alias_event) config_.on_alias_event(ns, event);
}

std::optional<v1::AliasConflict> Engine::RecordAlias(const Waiter& waiter, const store::ArtifactRecord& record,
                                                     const std::vector<KeyComponent>& components) {
  const v1::KernelDescriptor& d = *waiter.descriptor;
  if (d.fast_key().empty() || d.no_store() || !waiter.peer.may_write) return std::nullopt;
  const store::AliasKey alias{waiter.peer.tenant, d.namespace_(), record.target, d.fast_key()};
  const store::AliasValue wanted{record.key, waiter.manifest};
  Expected<std::optional<store::AliasValue>> existing = store_.GetAliasValue(alias);
  const store::AliasValue* named = existing.ok() && existing->has_value() ? &**existing : nullptr;
  if (named != nullptr && *named == wanted) return std::nullopt;
  std::optional<v1::AliasConflict> conflict;
  const v1::AliasPolicy policy = EffectivePolicy(d.alias_policy());
  if (named != nullptr && policy != v1::ALIAS_POLICY_OFF) {
    if (!named->manifest.empty() && named->manifest != wanted.manifest) {
      // A declared dependency changed: the new artifact is expected.
      Notify(d.namespace_(), AliasEvent::kStale);
    } else if (named->key != record.key) {
      conflict = Conflict(alias, named->key, record, components, policy);
      if (conflict && !conflict->rebound()) return conflict;
    }
  }
  Status put = store_.PutAliasValue(alias, wanted);
  if (!put.ok()) {
    ++store_errors_;
    spdlog::error("alias write failed: {}", put.ToString());
  }
  return conflict;
}

std::optional<v1::AliasConflict> Engine::Conflict(const store::AliasKey& alias, const std::string& previous_key,
                                                  const store::ArtifactRecord& record,
                                                  const std::vector<KeyComponent>& components,
                                                  v1::AliasPolicy policy) {
  // An alias whose artifact is gone, or was built by another toolchain,
  // serves nothing any more: moving it is no conflict.
  Expected<std::shared_ptr<const store::ArtifactRecord>> previous = store_.GetShared(previous_key);
  if (!previous.ok() || *previous == nullptr || (*previous)->toolchain != toolchain_) return std::nullopt;

  const bool strict = policy == v1::ALIAS_POLICY_STRICT;
  v1::AliasConflict c;
  c.set_previous_artifact_key(previous_key);
  c.set_policy(policy);
  c.set_rebound(!strict);
  std::string what;
  v1::AliasConflictEvent event;
  if (std::optional<std::vector<KeyComponent>> before = StoredComponents(**previous)) {
    const std::vector<ComponentChange> changes = DiffComponents(*before, components);
    ToWire(changes, c.mutable_changes());
    for (const ComponentChange& change : changes) event.add_differing(change.name);
    what = DescribeChanges(changes);
  } else {
    c.set_components_unknown(true);
    what = "the earlier artifact's components are unknown (stored by an older daemon)";
  }
  const std::string ns = alias.ns.empty() ? "the default namespace" : "namespace '" + alias.ns + "'";
  std::string message = "fast-key conflict: fast key " + ToHex(alias.fast_key).substr(0, 16) + " in " + ns + " (" +
                        alias.target + ") named artifact " + ShortKey(previous_key) + ", this compile made " +
                        ShortKey(record.key) + ": " + what;
  message += strict ? " (strict: the alias still names " + ShortKey(previous_key) +
                          "; the fast key misses an input that changed)"
                    : " (the alias now names the new artifact)";
  c.set_message(ValidUtf8(message));
  if (strict) {
    c.mutable_warning()->set_code(static_cast<int>(Code::kFailedPrecondition));
    c.mutable_warning()->set_message(c.message());
  }
  Notify(alias.ns, AliasEvent::kConflict);
  event.set_unix_ms(NowUnixMs());
  event.set_previous_artifact_key(previous_key);
  event.set_artifact_key(record.key);
  event.set_policy(policy);
  event.set_rebound(!strict);
  if (alias_history_.Add(store::EncodeAliasKey(alias), std::move(event))) {
    spdlog::warn("{} [tenant {}]", c.message(), alias.tenant);
  }
  return c;
}

std::pair<std::string, std::string> Engine::LineageOf(const Waiter& waiter, std::string_view target,
                                                      const std::vector<std::string>& kernels) const {
  const v1::KernelDescriptor& d = *waiter.descriptor;
  if (!d.fast_key().empty()) {
    return {KernelLineage::FastKeyId(waiter.peer.tenant, d.namespace_(), d.fast_key()), "fast_key"};
  }
  std::vector<std::string> names(d.entry_points().begin(), d.entry_points().end());
  if (names.empty()) names = kernels;
  if (names.empty()) return {};
  return {KernelLineage::EntryPointsId(waiter.peer.tenant, d.namespace_(), target, std::move(names)),
          "entry_points"};
}

bool Engine::SameLineage(const Waiter& a, const Waiter& b) {
  const v1::KernelDescriptor& x = *a.descriptor;
  const v1::KernelDescriptor& y = *b.descriptor;
  return a.peer.tenant == b.peer.tenant && x.namespace_() == y.namespace_() && x.fast_key() == y.fast_key() &&
         std::equal(x.entry_points().begin(), x.entry_points().end(), y.entry_points().begin(),
                    y.entry_points().end());
}

std::optional<v1::MissReason> Engine::MissReasonFor(const Waiter& waiter, const Keyed& keyed,
                                                    const std::pair<std::string, std::string>& lineage) {
  if (keyed.kernel.no_store || keyed.kernel.recache) return std::nullopt;  // it was asked not to hit
  const auto& [id, basis] = lineage;
  if (id.empty()) return std::nullopt;
  std::optional<KernelLineage::Previous> previous = lineage_.Find(id);
  const v1::KernelDescriptor& d = *waiter.descriptor;
  if (!previous && !d.fast_key().empty()) {
    // Not seen since the daemon started: the alias in the store knows.
    const store::AliasKey alias{waiter.peer.tenant, d.namespace_(), keyed.target, d.fast_key()};
    Expected<std::optional<store::ArtifactKey>> named = store_.GetAlias(alias);
    if (named.ok() && named->has_value()) {
      previous.emplace();
      previous->key = **named;
      Expected<std::shared_ptr<const store::ArtifactRecord>> record = store_.GetShared(previous->key);
      if (record.ok() && *record != nullptr) {
        previous->components = StoredComponents(**record).value_or(std::vector<KeyComponent>());
      }
    }
  }
  if (!previous) return std::nullopt;
  v1::MissReason reason;
  reason.set_previous_artifact_key(previous->key);
  reason.set_basis(basis);
  if (previous->key == keyed.key) {
    reason.set_message("the same inputs as the earlier artifact " + ShortKey(previous->key) +
                       ", which is no longer stored (evicted or removed)");
  } else if (previous->components.empty()) {
    reason.set_message("the inputs of the earlier artifact " + ShortKey(previous->key) +
                       " are unknown (no longer stored, or stored by an older daemon)");
  } else {
    const std::vector<ComponentChange> changes = DiffComponents(previous->components, keyed.components);
    ToWire(changes, reason.mutable_changes());
    reason.set_message(ValidUtf8(DescribeChanges(changes)));
  }
  return reason;
}

}  // namespace qdcache::engine
