// The in-memory store's admin operations: List, EvictOlderThan, TrimTo and
// Verify. Eviction itself is the Evictor's (eviction.h).
#include <algorithm>

#include "store/memory_store.h"
#include "store/record_codec.h"

namespace qdcache::store {

Expected<std::vector<EntrySummary>> MemoryStore::List(std::size_t limit) {
  struct Listed {
    ArtifactKey key;
    std::shared_ptr<const ArtifactRecord> record;
    std::uint64_t bytes;
    std::uint64_t last_access;
  };
  std::vector<Listed> listed;
  {
    std::lock_guard<std::mutex> lock(mu_);
    listed.reserve(artifacts_.size());
    for (auto it = access_.rbegin(); it != access_.rend(); ++it) {
      const std::optional<ParsedAccessKey> parsed = ParseAccessKey(it->first);
      if (!parsed || parsed->kind != EntryKind::kArtifact) continue;
      auto found = artifacts_.find(std::string(parsed->key));
      if (found == artifacts_.end()) continue;
      listed.push_back(Listed{found->first, found->second.record, found->second.bytes,
                              found->second.last_access});
    }
  }
  // Verified outside the lock, one record at a time.
  std::vector<EntrySummary> out;
  for (const Listed& entry : listed) {
    if (limit != 0 && out.size() >= limit) break;
    if (Status check = VerifyRecord(*entry.record, entry.key); !check.ok()) {
      DropCorruptArtifact(entry.key, entry.record, check.message());
      continue;
    }
    EntrySummary summary;
    summary.key = entry.key;
    summary.kind = entry.record->kind;
    summary.target = entry.record->target;
    summary.toolchain = entry.record->toolchain;
    summary.bytes = entry.bytes;
    summary.payload_bytes = entry.record->payload.size();
    summary.created_unix_ms = entry.record->created_unix_ms;
    summary.last_access_unix_ms = entry.last_access / 1000;
    summary.compile_micros = entry.record->compile_micros;
    out.push_back(std::move(summary));
  }
  return out;
}

Expected<EvictionResult> MemoryStore::EvictOlderThan(std::chrono::milliseconds age) {
  return evictor_.EvictOlderThan(CutoffTick(clock_.NowMicros(), age));
}

Expected<EvictionResult> MemoryStore::TrimTo(std::uint64_t max_bytes) {
  return evictor_.TrimTo(max_bytes);
}

Expected<EvictionResult> MemoryStore::PlanEvictOlderThan(std::chrono::milliseconds age) {
  return evictor_.PlanOlderThan(CutoffTick(clock_.NowMicros(), age));
}

Expected<EvictionResult> MemoryStore::PlanTrimTo(std::uint64_t max_bytes) {
  return evictor_.PlanTrimTo(max_bytes);
}

Expected<VerifyResult> MemoryStore::Verify() {
  std::vector<std::pair<ArtifactKey, std::shared_ptr<const ArtifactRecord>>> artifacts;
  std::vector<std::pair<std::string, std::shared_ptr<const std::string>>> stages;
  std::vector<std::pair<std::string, std::string>> aliases;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [key, entry] : artifacts_) artifacts.emplace_back(key, entry.record);
    for (const auto& [key, entry] : stages_) stages.emplace_back(key, entry.stored);
    aliases.assign(aliases_.begin(), aliases_.end());
  }
  VerifyResult result;
  const auto drop = [&result](bool dropped, const std::string& key) {
    if (!dropped) return;
    ++result.dropped;
    result.dropped_keys.push_back(key);
  };
  for (const auto& [key, record] : artifacts) {
    ++result.checked;
    if (Status check = VerifyRecord(*record, key); !check.ok()) {
      drop(DropCorruptArtifact(key, record, check.message()), key);
    }
  }
  for (const auto& [key, stored] : stages) {
    ++result.checked;
    std::string value;
    if (Status check = DecodeStageValue(key, *stored, &value); !check.ok()) {
      drop(DropCorruptStage(key, stored, check.message()), key);
    }
  }
  for (const auto& [alias_key, value] : aliases) {
    ++result.checked;
    ArtifactKey target;
    if (Status check = DecodeAliasValue(alias_key, value, &target); !check.ok()) {
      drop(DropCorruptAlias(alias_key, value, check.message()), alias_key);
    }
  }
  return result;
}

}  // namespace qdcache::store
