// Access-time flushes, the entry points of eviction (background passes,
// EvictOlderThan, TrimTo: the policy is eviction.h), List and Verify.
#include <rocksdb/db.h>
#include <rocksdb/snapshot.h>
#include <rocksdb/write_batch.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "common/digest.h"
#include "store/record_codec.h"
#include "store/rocksdb_layout.h"
#include "store/rocksdb_status.h"
#include "store/rocksdb_store.h"

namespace qdcache::store {

Status RocksDbStore::FlushAccessTimes() {
  std::vector<AccessTracker::Access> pending = accesses_.TakeAll();
  if (pending.empty()) return Status::Ok();
  Status s = WriteAccessTimes(pending);
  // A failed flush (a full disk, say) must not forget the reads: they go
  // back to the tracker for the next flush (a newer read of a key wins there).
  if (!s.ok()) {
    for (const AccessTracker::Access& access : pending) accesses_.Record(access.kind, access.key, access.tick);
  }
  return s;
}

Status RocksDbStore::WriteAccessTimes(const std::vector<AccessTracker::Access>& pending) {
  std::lock_guard<std::mutex> lock(write_mu_);
  rocksdb::WriteBatch batch;
  for (const AccessTracker::Access& access : pending) {
    QDC_ASSIGN_OR_RETURN(std::optional<EntryInfo> info,
                         ReadEntryInfo(access.kind, access.key, rocksdb::ReadOptions()));
    // Gone (evicted, deleted) or written again since the read: nothing to move.
    if (!info || info->last_access >= access.tick) continue;
    // A read that raced an eviction walk past its tick lands just after the
    // walk instead, where walks still see it (see lru_cursor_).
    const std::uint64_t tick = std::max(access.tick, lru_cursor_tick_ + 1);
    const EntryInfo touched{info->bytes, tick};
    QDC_RETURN_IF_ERROR(FromRocks(
        batch.Delete(access_, AccessKey(info->last_access, access.kind, access.key)), "batch"));
    QDC_RETURN_IF_ERROR(FromRocks(
        batch.Put(access_, AccessKey(tick, access.kind, access.key), EncodeFixed64(info->bytes)),
        "batch"));
    QDC_RETURN_IF_ERROR(
        FromRocks(batch.Put(meta_, EntryInfoKey(access.kind, access.key), EncodeEntryInfo(touched)),
                  "batch"));
  }
  if (batch.Count() == 0) return Status::Ok();
  return WriteLocked(&batch, sync_writes_, "writing access times");
}

void RocksDbStore::RunEvictionPass() {
  Expected<EvictionResult> evicted = evictor_.RunPass();
  if (!evicted.ok()) {
    spdlog::error("store '{}': eviction pass failed: {}", path_, evicted.status().ToString());
  } else if (evicted->entries > 0) {
    spdlog::debug("store '{}': evicted {} entries ({} bytes)", path_, evicted->entries,
                  evicted->bytes);
  }
}

Expected<EvictionResult> RocksDbStore::TrimTo(std::uint64_t max_bytes) {
  QDC_RETURN_IF_ERROR(FlushAccessTimes());
  return evictor_.TrimTo(max_bytes);
}

Expected<EvictionResult> RocksDbStore::EvictOlderThan(std::chrono::milliseconds age) {
  QDC_RETURN_IF_ERROR(FlushAccessTimes());
  return evictor_.EvictOlderThan(CutoffTick(clock_.NowMicros(), age));
}

Expected<EvictionResult> RocksDbStore::PlanTrimTo(std::uint64_t max_bytes) {
  QDC_RETURN_IF_ERROR(FlushAccessTimes());
  return evictor_.PlanTrimTo(max_bytes);
}

Expected<EvictionResult> RocksDbStore::PlanEvictOlderThan(std::chrono::milliseconds age) {
  QDC_RETURN_IF_ERROR(FlushAccessTimes());
  return evictor_.PlanOlderThan(CutoffTick(clock_.NowMicros(), age));
}

Expected<std::vector<EntrySummary>> RocksDbStore::List(std::size_t limit) {
  QDC_RETURN_IF_ERROR(FlushAccessTimes());
  // One snapshot for the index, the infos and the records: a consistent view
  // however writers and eviction move on meanwhile.
  rocksdb::ManagedSnapshot snapshot(db_);
  rocksdb::ReadOptions read_options = ScanOptions();
  read_options.snapshot = snapshot.snapshot();
  std::vector<EntrySummary> out;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(read_options, access_));
  for (it->SeekToLast(); it->Valid() && (limit == 0 || out.size() < limit); it->Prev()) {
    const std::optional<ParsedAccessKey> parsed = ParseAccessKey(it->key().ToStringView());
    if (!parsed || parsed->kind != EntryKind::kArtifact) continue;
    const std::string key(parsed->key);
    QDC_ASSIGN_OR_RETURN(std::optional<EntryInfo> info,
                         ReadEntryInfo(EntryKind::kArtifact, key, read_options));
    if (!info || info->last_access != parsed->tick) continue;
    QDC_ASSIGN_OR_RETURN(std::optional<ArtifactRecord> record, ReadArtifact(key, read_options));
    if (!record) continue;
    EntrySummary summary;
    summary.key = key;
    summary.kind = record->kind;
    summary.target = std::move(record->target);
    summary.toolchain = std::move(record->toolchain);
    summary.bytes = info->bytes;
    summary.payload_bytes = record->payload.size();
    summary.created_unix_ms = record->created_unix_ms;
    summary.last_access_unix_ms = info->last_access / 1000;
    summary.compile_micros = record->compile_micros;
    out.push_back(std::move(summary));
  }
  QDC_RETURN_IF_ERROR(FromRocks(it->status(), "reading the access index"));
  return out;
}

Expected<VerifyResult> RocksDbStore::Verify() {
  VerifyResult result;
  const auto drop = [&result](bool dropped, std::string_view key) {
    if (!dropped) return;
    ++result.dropped;
    result.dropped_keys.emplace_back(key);
  };
  for (EntryKind kind : {EntryKind::kArtifact, EntryKind::kStage}) {
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ScanOptions(), ValuesCf(kind)));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      ++result.checked;
      const std::string key = it->key().ToString();
      const std::string_view value = it->value().ToStringView();
      Status check;
      if (kind == EntryKind::kArtifact) {
        ArtifactRecord record;
        check = DecodeRecord(value, &record);
        if (check.ok()) check = VerifyRecord(record, key);
      } else {
        std::string decoded;
        check = DecodeStageValue(key, value, &decoded);
      }
      if (!check.ok()) {
        drop(DropCorruptEntry(kind, key, std::string(value), check.message()), key);
      }
    }
    QDC_RETURN_IF_ERROR(FromRocks(it->status(), "verifying the store"));
  }
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ScanOptions(), aliases_));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    ++result.checked;
    const std::string alias_key = it->key().ToString();
    ArtifactKey target;
    Status check = DecodeAliasValue(alias_key, it->value().ToStringView(), &target);
    if (!check.ok()) {
      drop(DropCorruptAlias(alias_key, it->value().ToString(), check.message()), alias_key);
    }
  }
  QDC_RETURN_IF_ERROR(FromRocks(it->status(), "verifying aliases"));
  return result;
}

}  // namespace qdcache::store
