#include "remote/tiered_store.h"

#include <spdlog/spdlog.h>

#include "store/record_codec.h"

namespace qdcache::remote {
namespace {

std::uint64_t NowUnixMs() {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                        std::chrono::system_clock::now().time_since_epoch())
                                        .count());
}

}  // namespace

TieredStore::TieredStore(std::unique_ptr<store::ArtifactStore> local, std::unique_ptr<RemoteTier> remote)
    : local_(std::move(local)), remote_(std::move(remote)) {}

Expected<std::optional<store::ArtifactRecord>> TieredStore::Get(const store::ArtifactKey& key) {
  Expected<std::optional<store::ArtifactRecord>> local = local_->Get(key);
  if (!local.ok() || local->has_value()) return local;
  return FromRemote(key);
}

std::optional<store::ArtifactRecord> TieredStore::FromRemote(const store::ArtifactKey& key) {
  Expected<std::optional<store::ArtifactRecord>> remote = remote_->GetArtifact(key);
  if (!remote.ok() || !remote->has_value()) return std::nullopt;  // a miss either way
  ++remote_served_;
  if (!remote_->options().backfill) return std::move(remote).value();
  if (Status s = local_->Put(**remote); !s.ok()) {
    spdlog::warn("back-fill of a remote artifact into the local store failed: {}", s.ToString());
  }
  return std::move(remote).value();
}

std::optional<std::uint64_t> TieredStore::Generation() const {
  const std::optional<std::uint64_t> local = local_->Generation();
  if (!local) return std::nullopt;
  return *local + remote_served_.load();
}

void TieredStore::RecordAccesses(const std::vector<store::ArtifactKey>& keys) { local_->RecordAccesses(keys); }

Expected<std::shared_ptr<const store::ArtifactRecord>> TieredStore::GetShared(const store::ArtifactKey& key) {
  Expected<std::shared_ptr<const store::ArtifactRecord>> local = local_->GetShared(key);
  if (!local.ok() || *local != nullptr) return local;
  std::optional<store::ArtifactRecord> remote = FromRemote(key);
  if (!remote) return local;  // the miss
  return std::shared_ptr<const store::ArtifactRecord>(
      std::make_shared<const store::ArtifactRecord>(std::move(*remote)));
}

Status TieredStore::Put(const store::ArtifactRecord& record, const std::optional<store::AliasKey>& alias) {
  if (remote_->read_only()) return local_->Put(record, alias);
  // The remote copy needs the digest and creation time the local store
  // would fill in: fill them once, here, so both tiers hold the same record.
  store::ArtifactRecord complete = record;
  QDC_RETURN_IF_ERROR(store::ValidateForPut(&complete, NowUnixMs()));
  QDC_RETURN_IF_ERROR(local_->Put(complete, alias));
  // Refused artifacts are counted by ShareDecision; their aliases still go.
  if (remote_->ShareDecision(complete) == Share::kYes) (void)remote_->PutArtifact(complete);
  if (alias) (void)remote_->PutAlias(*alias, store::AliasValue{complete.key, {}});
  return Status::Ok();
}

Expected<std::optional<store::AliasValue>> TieredStore::GetAliasValue(const store::AliasKey& alias) {
  Expected<std::optional<store::AliasValue>> local = local_->GetAliasValue(alias);
  if (!local.ok() || local->has_value()) return local;
  Expected<std::optional<store::AliasValue>> remote = remote_->GetAlias(alias);
  if (!remote.ok() || !remote->has_value()) return local;
  ++remote_served_;
  if (!remote_->options().backfill) return remote;
  if (Status s = local_->PutAliasValue(alias, **remote); !s.ok()) {
    spdlog::warn("back-fill of a remote alias into the local store failed: {}", s.ToString());
  }
  return remote;
}

Status TieredStore::PutAliasValue(const store::AliasKey& alias, const store::AliasValue& value) {
  // Back-fill off: the local store holds this daemon's own artifacts and
  // their aliases only; an alias of a remote artifact goes to the remote.
  bool local = true;
  if (!remote_->options().backfill && !remote_->read_only()) {
    Expected<std::shared_ptr<const store::ArtifactRecord>> target = local_->GetShared(value.key);
    local = !target.ok() || *target != nullptr;  // a failed read keeps it local
  }
  if (local) QDC_RETURN_IF_ERROR(local_->PutAliasValue(alias, value));
  if (!remote_->read_only()) (void)remote_->PutAlias(alias, value);
  return Status::Ok();
}

Status TieredStore::Delete(const store::ArtifactKey& key) { return local_->Delete(key); }

Expected<std::optional<std::string>> TieredStore::GetStage(const std::string& key) {
  return local_->GetStage(key);
}

Status TieredStore::PutStage(const std::string& key, std::string_view value) {
  return local_->PutStage(key, value);
}

Status TieredStore::FlushAccessTimes() { return local_->FlushAccessTimes(); }

Expected<std::vector<store::EntrySummary>> TieredStore::List(std::size_t limit) {
  return local_->List(limit);
}

Expected<store::EvictionResult> TieredStore::EvictOlderThan(std::chrono::milliseconds age) {
  return local_->EvictOlderThan(age);
}

Expected<store::EvictionResult> TieredStore::TrimTo(std::uint64_t max_bytes) {
  return local_->TrimTo(max_bytes);
}

Expected<store::EvictionResult> TieredStore::PlanEvictOlderThan(std::chrono::milliseconds age) {
  return local_->PlanEvictOlderThan(age);
}

Expected<store::EvictionResult> TieredStore::PlanTrimTo(std::uint64_t max_bytes) {
  return local_->PlanTrimTo(max_bytes);
}

Expected<store::VerifyResult> TieredStore::Verify() { return local_->Verify(); }

store::StoreStats TieredStore::Stats() { return local_->Stats(); }

Expected<std::unique_ptr<store::StoreSnapshot>> TieredStore::OpenSnapshot(const store::AliasScope& scope) {
  return local_->OpenSnapshot(scope);
}

}  // namespace qdcache::remote
