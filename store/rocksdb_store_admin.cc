// Access-time flushes, eviction (background passes, EvictOlderThan, TrimTo),
// List and Verify.
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
namespace {

// Index entries visited per hold of the write lock during eviction: large
// enough to amortize a WriteBatch, small enough that a Put waits briefly.
constexpr int kEvictionChunk = 64;

rocksdb::ReadOptions ScanOptions() {
  rocksdb::ReadOptions options;
  options.fill_cache = false;  // a full scan would only evict what is hot
  return options;
}

}  // namespace

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

void RocksDbStore::RecordEvictedLocked(const EvictionResult& chunk) {
  evictions_ += chunk.entries;
  evicted_bytes_ += chunk.bytes;
}

Expected<EvictionResult> RocksDbStore::EvictLru(const EvictWhile& evict_while) {
  EvictionResult result;
  // Every visited index entry is deleted in its chunk, so a walk resumes
  // right after the last one visited instead of stepping over the tombstones
  // of everything evicted before (by this walk, or any earlier one: see
  // lru_cursor_).
  std::string resume;
  for (bool done = false; !done;) {
    std::lock_guard<std::mutex> lock(write_mu_);
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions(), access_));
    if (resume < lru_cursor_) resume = lru_cursor_;
    if (resume.empty()) {
      it->SeekToFirst();
    } else {
      it->Seek(resume);
    }
    Counters next = counters_;
    EvictionResult chunk;
    rocksdb::WriteBatch batch;
    std::string visited_up_to = resume;
    for (int visited = 0; it->Valid() && visited < kEvictionChunk; it->Next(), ++visited) {
      const std::optional<ParsedAccessKey> parsed = ParseAccessKey(it->key().ToStringView());
      if (parsed && !evict_while(parsed->tick, next)) {
        done = true;
        break;
      }
      visited_up_to = it->key().ToString();
      std::optional<EntryInfo> info;
      if (parsed) {
        QDC_ASSIGN_OR_RETURN(info,
                             ReadEntryInfo(parsed->kind, parsed->key, rocksdb::ReadOptions()));
      }
      if (!info || info->last_access != parsed->tick) {
        // Unparsable or stale (its entry is gone or was touched): drop it alone.
        QDC_RETURN_IF_ERROR(FromRocks(batch.Delete(access_, it->key()), "batch"));
        continue;
      }
      QDC_RETURN_IF_ERROR(RemoveEntryLocked(parsed->kind, parsed->key, *info, &batch, &next));
      ++chunk.entries;
      chunk.bytes += info->bytes;
    }
    QDC_RETURN_IF_ERROR(FromRocks(it->status(), "reading the access index"));
    if (!done && !it->Valid()) done = true;  // walked the whole index
    if (batch.Count() == 0) break;
    QDC_RETURN_IF_ERROR(CommitLocked(&batch, next));
    RecordEvictedLocked(chunk);
    resume = visited_up_to;
    AdvanceLruCursorLocked(resume);
    result.entries += chunk.entries;
    result.bytes += chunk.bytes;
  }
  return result;
}

void RocksDbStore::AdvanceLruCursorLocked(const std::string& deleted_up_to) {
  if (deleted_up_to <= lru_cursor_) return;
  lru_cursor_ = deleted_up_to;
  if (auto parsed = ParseAccessKey(lru_cursor_)) lru_cursor_tick_ = parsed->tick;
}

Expected<RocksDbStore::EntryIds> RocksDbStore::ScanForLarger(std::uint64_t limit) {
  // In chunks under the write lock, like the eviction walk: writers wait at
  // most one chunk, and nothing reads index memory a writer is filling in.
  constexpr int kScanChunk = 1024;
  EntryIds out;
  std::string resume;
  for (bool done = false; !done;) {
    std::lock_guard<std::mutex> lock(write_mu_);
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ScanOptions(), access_));
    if (resume.empty()) {
      it->SeekToFirst();
    } else {
      it->Seek(resume);
      if (it->Valid() && it->key().ToStringView() == resume) it->Next();
    }
    for (int n = 0; it->Valid() && n < kScanChunk; it->Next(), ++n) {
      resume = it->key().ToString();
      std::uint64_t bytes = 0;
      const std::optional<ParsedAccessKey> parsed = ParseAccessKey(resume);
      if (parsed && DecodeFixed64(it->value().ToStringView(), &bytes) && bytes > limit) {
        out.emplace(parsed->kind, std::string(parsed->key));
      }
    }
    QDC_RETURN_IF_ERROR(FromRocks(it->status(), "scanning the access index"));
    done = !it->Valid();
  }
  return out;
}

Expected<EvictionResult> RocksDbStore::EvictToLimit(std::uint64_t limit, EntryIds candidates) {
  EvictionResult result;
  {
    std::lock_guard<std::mutex> lock(write_mu_);
    candidates.insert(oversized_.begin(), oversized_.end());
  }
  // An entry that alone exceeds the limit can never stay; evicting it first
  // keeps it from pushing out everything older than itself on the way.
  for (auto chunk_begin = candidates.begin(); chunk_begin != candidates.end();) {
    std::lock_guard<std::mutex> lock(write_mu_);
    Counters next = counters_;
    EvictionResult chunk;
    rocksdb::WriteBatch batch;
    for (int n = 0; chunk_begin != candidates.end() && n < kEvictionChunk; ++chunk_begin, ++n) {
      const auto& [kind, key] = *chunk_begin;
      QDC_ASSIGN_OR_RETURN(std::optional<EntryInfo> info,
                           ReadEntryInfo(kind, key, rocksdb::ReadOptions()));
      if (!info || max_bytes_ == 0 || info->bytes <= max_bytes_) {
        oversized_.erase(*chunk_begin);  // gone, or within the cap: no candidate any more
      }
      if (!info || info->bytes <= limit) continue;
      QDC_RETURN_IF_ERROR(RemoveEntryLocked(kind, key, *info, &batch, &next));
      ++chunk.entries;
      chunk.bytes += info->bytes;
    }
    if (batch.Count() == 0) continue;
    QDC_RETURN_IF_ERROR(CommitLocked(&batch, next));
    RecordEvictedLocked(chunk);
    result.entries += chunk.entries;
    result.bytes += chunk.bytes;
  }
  QDC_ASSIGN_OR_RETURN(EvictionResult lru, EvictLru([limit](std::uint64_t, const Counters& c) {
                         return c.total_bytes() > limit;
                       }));
  result.entries += lru.entries;
  result.bytes += lru.bytes;
  return result;
}

void RocksDbStore::RunEvictionPass() {
  if (max_bytes_ == 0) return;
  EntryIds candidates;
  if (scan_for_oversized_) {
    Expected<EntryIds> found = ScanForLarger(max_bytes_);
    if (found.ok()) {
      candidates = std::move(found).value();
      scan_for_oversized_ = false;
    }
  }
  Expected<EvictionResult> evicted = EvictToLimit(max_bytes_, std::move(candidates));
  if (!evicted.ok()) {
    spdlog::error("store '{}': eviction pass failed: {}", path_, evicted.status().ToString());
  } else if (evicted->entries > 0) {
    spdlog::debug("store '{}': evicted {} entries ({} bytes)", path_, evicted->entries,
                  evicted->bytes);
  }
}

Expected<EvictionResult> RocksDbStore::TrimTo(std::uint64_t max_bytes) {
  QDC_RETURN_IF_ERROR(FlushAccessTimes());
  QDC_ASSIGN_OR_RETURN(auto larger, ScanForLarger(max_bytes));
  return EvictToLimit(max_bytes, std::move(larger));
}

Expected<EvictionResult> RocksDbStore::EvictOlderThan(std::chrono::milliseconds age) {
  QDC_RETURN_IF_ERROR(FlushAccessTimes());
  const auto age_us =
      static_cast<std::uint64_t>(std::max<std::int64_t>(0, std::chrono::microseconds(age).count()));
  const std::uint64_t now = clock_.NowMicros();
  const std::uint64_t cutoff = now > age_us ? now - age_us : 0;
  return EvictLru([cutoff](std::uint64_t tick, const Counters&) { return tick < cutoff; });
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
