// The in-memory store: reads and writes of artifacts, stage outputs and
// aliases, verification on read, corruption drops, counters and lifecycle.
#include "store/memory_store.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <utility>

#include "common/digest.h"
#include "store/record_codec.h"

namespace qdcache::store {

MemoryStore::MemoryStore(const StoreOptions& options)
    : clock_(options.clock), evictor_(*this, options.max_bytes) {}

std::unique_ptr<MemoryStore> MemoryStore::Create(const StoreOptions& options) {
  std::unique_ptr<MemoryStore> store(new MemoryStore(options));
  Housekeeper::Jobs jobs;
  jobs.flush_access_times = [] {};  // reads move their entries at once
  jobs.eviction_pass = [raw = store.get()] { raw->RunEvictionPass(); };
  store->housekeeper_ =
      std::make_unique<Housekeeper>(std::chrono::milliseconds(0), std::move(jobs));
  return store;
}

MemoryStore::~MemoryStore() { housekeeper_.reset(); }

void MemoryStore::RunEvictionPass() {
  Expected<EvictionResult> evicted = evictor_.RunPass();
  if (!evicted.ok()) {
    spdlog::error("memory store: eviction pass failed: {}", evicted.status().ToString());
  }
}

std::uint64_t MemoryStore::IndexWriteLocked(EntryKind kind, const std::string& key,
                                            std::uint64_t bytes, const std::uint64_t* old_access) {
  if (old_access != nullptr) access_.erase(AccessKey(*old_access, kind, key));
  const std::uint64_t tick = clock_.Tick();
  access_[AccessKey(tick, kind, key)] = bytes;
  evictor_.Written(kind, key, bytes, tick);
  return tick;
}

void MemoryStore::TouchLocked(EntryKind kind, const std::string& key, std::uint64_t bytes,
                              std::uint64_t* last_access) {
  access_.erase(AccessKey(*last_access, kind, key));
  *last_access = clock_.Tick();
  access_[AccessKey(*last_access, kind, key)] = bytes;
}

void MemoryStore::RemoveLocked(EntryKind kind, const std::string& key) {
  std::uint64_t bytes = 0;
  std::uint64_t last_access = 0;
  if (kind == EntryKind::kArtifact) {
    auto it = artifacts_.find(key);
    if (it == artifacts_.end()) return;
    bytes = it->second.bytes;
    last_access = it->second.last_access;
    artifacts_.erase(it);
  } else {
    auto it = stages_.find(key);
    if (it == stages_.end()) return;
    bytes = it->second.bytes;
    last_access = it->second.last_access;
    stages_.erase(it);
  }
  access_.erase(AccessKey(last_access, kind, key));
  counters_.Removed(kind, bytes);
}

std::shared_ptr<const ArtifactRecord> MemoryStore::ReadArtifact(const ArtifactKey& key) {
  std::shared_ptr<const ArtifactRecord> record;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = artifacts_.find(key);
    if (it == artifacts_.end()) return nullptr;
    record = it->second.record;
    TouchLocked(EntryKind::kArtifact, key, it->second.bytes, &it->second.last_access);
  }
  if (Status check = VerifyRecord(*record, key); !check.ok()) {
    DropCorruptArtifact(key, record, check.message());
    return nullptr;
  }
  return record;
}

Expected<std::optional<ArtifactRecord>> MemoryStore::Get(const ArtifactKey& key) {
  std::shared_ptr<const ArtifactRecord> record = ReadArtifact(key);
  if (!record) return std::optional<ArtifactRecord>();
  return std::optional<ArtifactRecord>(*record);  // a copy: the caller owns it
}

Expected<std::shared_ptr<const ArtifactRecord>> MemoryStore::GetShared(const ArtifactKey& key) {
  return ReadArtifact(key);  // immutable: sharing it is as safe as a copy
}

void MemoryStore::RecordAccesses(const std::vector<ArtifactKey>& keys) {
  for (const ArtifactKey& key : keys) (void)ReadArtifact(key);  // a read moves the entry in the LRU order
}

Status MemoryStore::Put(const ArtifactRecord& record, const std::optional<AliasKey>& alias) {
  ArtifactRecord validated = record;
  QDC_RETURN_IF_ERROR(ValidateForPut(&validated, clock_.NowMicros() / 1000));
  const std::uint64_t bytes = AccountedBytes(validated);
  auto stored = std::make_shared<const ArtifactRecord>(std::move(validated));
  std::string alias_key;
  std::string alias_value;
  if (alias) {
    alias_key = EncodeAliasKey(*alias);
    alias_value = EncodeAliasValue(alias_key, stored->key);
  }
  std::uint64_t total_after = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto [it, inserted] = artifacts_.try_emplace(stored->key);
    Artifact& entry = it->second;
    const std::uint64_t old_bytes = entry.bytes;
    counters_.Written(EntryKind::kArtifact, bytes, inserted ? nullptr : &old_bytes);
    entry.last_access = IndexWriteLocked(EntryKind::kArtifact, stored->key, bytes,
                                         inserted ? nullptr : &entry.last_access);
    entry.bytes = bytes;
    entry.record = std::move(stored);
    if (alias) {
      if (aliases_.insert_or_assign(std::move(alias_key), std::move(alias_value)).second) {
        ++counters_.aliases;
      }
    }
    total_after = counters_.total_bytes();
  }
  evictor_.AfterWrite(total_after, bytes, *housekeeper_);
  return Status::Ok();
}

Expected<std::optional<AliasValue>> MemoryStore::GetAliasValue(const AliasKey& alias) {
  const std::string alias_key = EncodeAliasKey(alias);
  std::string value;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = aliases_.find(alias_key);
    if (it == aliases_.end()) return std::optional<AliasValue>();
    value = it->second;
  }
  AliasValue decoded;
  if (Status check = DecodeAliasValue(alias_key, value, &decoded); !check.ok()) {
    DropCorruptAlias(alias_key, value, check.message());
    return std::optional<AliasValue>();
  }
  return std::optional<AliasValue>(std::move(decoded));
}

Status MemoryStore::PutAliasValue(const AliasKey& alias, const AliasValue& target) {
  if (target.key.empty()) return InvalidArgument("alias target key is empty");
  std::string alias_key = EncodeAliasKey(alias);
  std::string value = EncodeAliasValue(alias_key, target);
  std::lock_guard<std::mutex> lock(mu_);
  if (aliases_.insert_or_assign(std::move(alias_key), std::move(value)).second) {
    ++counters_.aliases;
  }
  return Status::Ok();
}

Status MemoryStore::Delete(const ArtifactKey& key) {
  std::lock_guard<std::mutex> lock(mu_);
  RemoveLocked(EntryKind::kArtifact, key);
  return Status::Ok();
}

Expected<std::optional<std::string>> MemoryStore::GetStage(const std::string& key) {
  std::shared_ptr<const std::string> stored;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = stages_.find(key);
    if (it == stages_.end()) return std::optional<std::string>();
    stored = it->second.stored;
    TouchLocked(EntryKind::kStage, key, it->second.bytes, &it->second.last_access);
  }
  std::string value;
  if (Status check = DecodeStageValue(key, *stored, &value); !check.ok()) {
    DropCorruptStage(key, stored, check.message());
    return std::optional<std::string>();
  }
  return std::optional<std::string>(std::move(value));
}

Status MemoryStore::PutStage(const std::string& key, std::string_view value) {
  if (key.empty()) return InvalidArgument("stage key is empty");
  auto stored = std::make_shared<const std::string>(EncodeStageValue(key, value));
  const std::uint64_t bytes = value.size();
  std::uint64_t total_after = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto [it, inserted] = stages_.try_emplace(key);
    Stage& entry = it->second;
    const std::uint64_t old_bytes = entry.bytes;
    counters_.Written(EntryKind::kStage, bytes, inserted ? nullptr : &old_bytes);
    entry.last_access =
        IndexWriteLocked(EntryKind::kStage, key, bytes, inserted ? nullptr : &entry.last_access);
    entry.bytes = bytes;
    entry.stored = std::move(stored);
    total_after = counters_.total_bytes();
  }
  evictor_.AfterWrite(total_after, bytes, *housekeeper_);
  return Status::Ok();
}

Status MemoryStore::FlushAccessTimes() { return Status::Ok(); }

StoreStats MemoryStore::Stats() {
  std::lock_guard<std::mutex> lock(mu_);
  StoreStats stats;
  counters_.Fill(&stats);
  stats.corrupt_dropped = corrupt_dropped_;
  stats.evictions = evictor_.evictions();
  stats.evicted_bytes = evictor_.evicted_bytes();
  return stats;
}

void MemoryStore::CountDropLocked(std::string_view what, std::string_view key,
                                  const std::string& reason) {
  ++corrupt_dropped_;
  spdlog::error("memory store: dropped corrupt {} {}: {}", what, ToHex(key), reason);
}

bool MemoryStore::DropCorruptArtifact(const ArtifactKey& key,
                                      const std::shared_ptr<const ArtifactRecord>& observed,
                                      const std::string& reason) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = artifacts_.find(key);
  // Replaced since the read (a Put of a good record): that one stays.
  if (it == artifacts_.end() || it->second.record != observed) return false;
  RemoveLocked(EntryKind::kArtifact, key);
  CountDropLocked("artifact", key, reason);
  return true;
}

bool MemoryStore::DropCorruptStage(const std::string& key,
                                   const std::shared_ptr<const std::string>& observed,
                                   const std::string& reason) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = stages_.find(key);
  if (it == stages_.end() || it->second.stored != observed) return false;
  RemoveLocked(EntryKind::kStage, key);
  CountDropLocked("stage output", key, reason);
  return true;
}

bool MemoryStore::DropCorruptAlias(const std::string& encoded_alias, const std::string& observed,
                                   const std::string& reason) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = aliases_.find(encoded_alias);
  if (it == aliases_.end() || it->second != observed) return false;
  aliases_.erase(it);
  counters_.AliasRemoved();
  CountDropLocked("alias", encoded_alias, reason);
  return true;
}

bool MemoryStore::DamageArtifactForTesting(const ArtifactKey& key) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = artifacts_.find(key);
  if (it == artifacts_.end()) return false;
  auto damaged = std::make_shared<ArtifactRecord>(*it->second.record);
  damaged->payload[damaged->payload.size() / 2] ^= 0x01;  // Put refuses empty payloads
  it->second.record = std::move(damaged);
  return true;
}

bool MemoryStore::DamageStageForTesting(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = stages_.find(key);
  if (it == stages_.end()) return false;
  auto damaged = std::make_shared<std::string>(*it->second.stored);
  damaged->back() ^= 0x01;  // never empty: the header comes first
  it->second.stored = std::move(damaged);
  return true;
}

bool MemoryStore::DamageAliasForTesting(const AliasKey& alias) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = aliases_.find(EncodeAliasKey(alias));
  if (it == aliases_.end()) return false;
  it->second.back() ^= 0x01;  // the artifact key it names: the check no longer matches
  return true;
}

}  // namespace qdcache::store
