// The EvictionIndex of the RocksDB store: the access column family (LRU
// first, see entry_index.h) and the entry infos in meta. Each call holds
// write_mu_ for one chunk, so writers wait at most one chunk behind a walk.
#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>
#include <spdlog/spdlog.h>

#include "store/record_codec.h"
#include "store/rocksdb_layout.h"
#include "store/rocksdb_status.h"
#include "store/rocksdb_store.h"

namespace qdcache::store {
namespace {

// Access index entries read per hold of write_mu_ while looking for large
// entries.
constexpr int kScanChunk = 1024;

// The entry an access index record describes; nullopt when it is not one.
std::optional<IndexedEntry> ParseIndexed(std::string_view key, std::string_view value) {
  const std::optional<ParsedAccessKey> parsed = ParseAccessKey(key);
  std::uint64_t bytes = 0;
  if (!parsed || !DecodeFixed64(value, &bytes)) return std::nullopt;
  return IndexedEntry{parsed->kind, std::string(parsed->key), bytes, parsed->tick};
}

}  // namespace

std::uint64_t RocksDbStore::TotalBytes() {
  std::lock_guard<std::mutex> lock(write_mu_);
  return counters_.total_bytes();
}

Expected<std::vector<IndexedEntry>> RocksDbStore::Oldest(const IndexedEntry* after,
                                                         std::size_t max) {
  std::lock_guard<std::mutex> lock(write_mu_);
  std::vector<IndexedEntry> out;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions(), access_));
  // Start at the cursor, or just after `after` when that is further on.
  const std::string after_key =
      after != nullptr ? AccessKey(after->last_access, after->kind, after->key) : std::string();
  if (after != nullptr && after_key >= lru_cursor_) {
    it->Seek(after_key);
    if (it->Valid() && it->key().ToStringView() == after_key) it->Next();
  } else if (!lru_cursor_.empty()) {
    it->Seek(lru_cursor_);
  } else {
    it->SeekToFirst();
  }
  rocksdb::WriteBatch garbage;
  for (; it->Valid() && out.size() < max; it->Next()) {
    std::optional<IndexedEntry> entry =
        ParseIndexed(it->key().ToStringView(), it->value().ToStringView());
    if (entry) {
      out.push_back(std::move(*entry));
    } else {
      // Never written by this code; it describes nothing, so it goes.
      QDC_RETURN_IF_ERROR(FromRocks(garbage.Delete(access_, it->key()), "batch"));
    }
  }
  QDC_RETURN_IF_ERROR(FromRocks(it->status(), "reading the access index"));
  if (garbage.Count() > 0) {
    spdlog::warn("store '{}': deleting {} unreadable access index entries", path_, garbage.Count());
    QDC_RETURN_IF_ERROR(WriteLocked(&garbage, sync_writes_, "cleaning the access index"));
  }
  return out;
}

Expected<std::vector<IndexedEntry>> RocksDbStore::LargerThan(std::uint64_t bytes) {
  // In chunks under the write lock, like an eviction walk: writers wait at
  // most one chunk.
  std::vector<IndexedEntry> out;
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
      std::optional<IndexedEntry> entry = ParseIndexed(resume, it->value().ToStringView());
      if (entry && entry->bytes > bytes) out.push_back(std::move(*entry));
    }
    QDC_RETURN_IF_ERROR(FromRocks(it->status(), "scanning the access index"));
    done = !it->Valid();
  }
  return out;
}

Expected<EvictionResult> RocksDbStore::Remove(const std::vector<IndexedEntry>& listed,
                                              const Decide& decide, const Committed& committed) {
  std::lock_guard<std::mutex> lock(write_mu_);
  Counters next = counters_;
  EvictionResult removed;
  rocksdb::WriteBatch batch;
  std::string deleted_up_to;  // the largest access index key deleted
  const auto deleted = [&deleted_up_to](std::string key) {
    if (key > deleted_up_to) deleted_up_to = std::move(key);
  };
  for (const IndexedEntry& entry : listed) {
    QDC_ASSIGN_OR_RETURN(std::optional<EntryInfo> info,
                         ReadEntryInfo(entry.kind, entry.key, rocksdb::ReadOptions()));
    if (!info || info->last_access != entry.last_access) {
      // The listed index record no longer describes its entry (already
      // deleted by the write that changed it, unless the store was damaged).
      std::string stale = AccessKey(entry.last_access, entry.kind, entry.key);
      QDC_RETURN_IF_ERROR(FromRocks(batch.Delete(access_, stale), "batch"));
      deleted(std::move(stale));
    }
    std::optional<IndexedEntry> current;
    if (info) current = IndexedEntry{entry.kind, entry.key, info->bytes, info->last_access};
    const Verdict verdict = decide(entry, current ? &*current : nullptr, next.total_bytes());
    if (verdict == Verdict::kStop) break;
    if (verdict == Verdict::kSkip || !current) continue;
    QDC_RETURN_IF_ERROR(RemoveEntryLocked(entry.kind, entry.key, *info, &batch, &next));
    deleted(AccessKey(info->last_access, entry.kind, entry.key));
    ++removed.entries;
    removed.bytes += info->bytes;
  }
  if (batch.Count() == 0) return removed;
  QDC_RETURN_IF_ERROR(CommitLocked(&batch, next));
  if (removed.entries > 0) committed(removed);
  AdvanceLruCursorLocked(deleted_up_to);
  return removed;
}

void RocksDbStore::AdvanceLruCursorLocked(const std::string& deleted_up_to) {
  // Everything below the old cursor was deleted before; everything between
  // it and the first record left has just been. Stepping over those
  // tombstones once here spares every later walk.
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ScanOptions(), access_));
  if (lru_cursor_.empty()) {
    it->SeekToFirst();
  } else {
    it->Seek(lru_cursor_);
  }
  if (!it->status().ok()) {
    // The removal stands; walks just start further back until the next one.
    spdlog::warn("store '{}': access index cursor not moved: {}", path_, it->status().ToString());
    return;
  }
  if (it->Valid()) {
    lru_cursor_ = it->key().ToString();
  } else if (deleted_up_to > lru_cursor_) {
    lru_cursor_ = deleted_up_to;  // nothing left: every record up to it is gone
  }
  if (auto parsed = ParseAccessKey(lru_cursor_)) lru_cursor_tick_ = parsed->tick;
}

}  // namespace qdcache::store
