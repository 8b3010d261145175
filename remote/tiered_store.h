// An ArtifactStore over two tiers: the daemon's local store (RocksDB) and a
// remote tier shared by many daemons (remote_tier.h).
//
//   Get / GetAlias   local first; on a local miss, the remote (read-through).
//                    A remote hit, verified, is back-filled into the local
//                    store (Put / PutAlias; unless RemoteOptions::backfill
//                    is off) and returned; a failed back-fill is logged and
//                    the value served anyway.
//   Put / PutAlias   local, then, unless the remote is read-only or the
//                    artifact fails its admission rules (RemoteTier::
//                    ShareDecision: too large, too cheap), the remote
//                    (write-through). Aliases always go to the remote: one
//                    of an artifact kept local sends other daemons to a
//                    remote miss (they compile), and a fast key rebound to
//                    such an artifact never keeps naming the older one
//                    there. With back-fill off, an alias of an artifact the
//                    local store does not hold goes to the remote only. The
//                    result is the local write's: a failed remote write is
//                    counted and logged only.
//   everything else  local only: stage outputs (GetStage / PutStage), List,
//                    Delete, EvictOlderThan, TrimTo, Verify, FlushAccessTimes,
//                    OpenSnapshot (export)
//                    and Stats concern this daemon's store; the remote keeps
//                    its own expiry (--remote-ttl, Redis maxmemory policy).
//
// Fail open: a remote that fails, times out or is behind an open breaker is a
// miss for reads and a no-op for writes; local hits and compiles go on.
// A local read failure is returned as it is (the remote is not consulted).
//
// Thread-safety: as ArtifactStore; both tiers must outlive the calls.
#pragma once

#include <atomic>
#include <memory>

#include "remote/remote_tier.h"
#include "store/artifact_store.h"

namespace qdcache::remote {

class TieredStore final : public store::ArtifactStore {
 public:
  TieredStore(std::unique_ptr<store::ArtifactStore> local, std::unique_ptr<RemoteTier> remote);

  [[nodiscard]] Expected<std::optional<store::ArtifactRecord>> Get(const store::ArtifactKey& key) override;
  [[nodiscard]] Status Put(const store::ArtifactRecord& record,
                           const std::optional<store::AliasKey>& alias = std::nullopt) override;
  [[nodiscard]] Expected<std::optional<store::AliasValue>> GetAliasValue(const store::AliasKey& alias) override;
  [[nodiscard]] Status PutAliasValue(const store::AliasKey& alias, const store::AliasValue& value) override;
  [[nodiscard]] Expected<std::shared_ptr<const store::ArtifactRecord>> GetShared(
      const store::ArtifactKey& key) override;
  [[nodiscard]] Status Delete(const store::ArtifactKey& key) override;
  [[nodiscard]] Expected<std::optional<std::string>> GetStage(const std::string& key) override;
  [[nodiscard]] Status PutStage(const std::string& key, std::string_view value) override;
  // The local store's, advanced also whenever a read is answered from the
  // remote tier (whose changes the local number does not see).
  [[nodiscard]] std::optional<std::uint64_t> Generation() const override;
  void RecordAccesses(const std::vector<store::ArtifactKey>& keys) override;
  [[nodiscard]] Status FlushAccessTimes() override;
  [[nodiscard]] Expected<std::vector<store::EntrySummary>> List(std::size_t limit = 0) override;
  [[nodiscard]] Expected<store::EvictionResult> EvictOlderThan(std::chrono::milliseconds age) override;
  [[nodiscard]] Expected<store::EvictionResult> TrimTo(std::uint64_t max_bytes) override;
  [[nodiscard]] Expected<store::EvictionResult> PlanEvictOlderThan(std::chrono::milliseconds age) override;
  [[nodiscard]] Expected<store::EvictionResult> PlanTrimTo(std::uint64_t max_bytes) override;
  [[nodiscard]] Expected<store::VerifyResult> Verify() override;
  [[nodiscard]] store::StoreStats Stats() override;
  // The local store's snapshot: an export carries what this host holds.
  [[nodiscard]] Expected<std::unique_ptr<store::StoreSnapshot>> OpenSnapshot(const store::AliasScope& scope) override;

  [[nodiscard]] RemoteTier& remote() { return *remote_; }

 private:
  // A local miss: the remote's verified record, written back into the local
  // store unless back-fill is off; nullopt when the remote has none or fails
  // (a miss either way).
  [[nodiscard]] std::optional<store::ArtifactRecord> FromRemote(const store::ArtifactKey& key);

  const std::unique_ptr<store::ArtifactStore> local_;
  const std::unique_ptr<RemoteTier> remote_;
  std::atomic<std::uint64_t> remote_served_{0};  // reads answered from remote_
};

}  // namespace qdcache::remote
