// Opening a store, its metadata and counters, and its lifecycle.
#include "store/rocksdb_store.h"

#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>
#include <spdlog/spdlog.h>

#include "common/digest.h"
#include "store/record_codec.h"
#include "store/rocksdb_counters.h"
#include "store/rocksdb_database.h"
#include "store/rocksdb_layout.h"
#include "store/rocksdb_status.h"
#include "store/store_dir.h"

namespace qdcache::store {

struct RocksDbStore::OpenAttempt {
  std::unique_ptr<RocksDbStore> store;
  std::string incompatible;  // non-empty: move the directory aside and retry
  Status error;              // otherwise, why the store could not be opened
};

RocksDbStore::RocksDbStore(const StoreOptions& options)
    : path_(options.path),
      sync_writes_(options.sync_writes),
      access_flush_interval_(options.access_flush_interval),
      clock_(options.clock),
      record_cache_(options.memory_cache_bytes),
      evictor_(*this, options.max_bytes) {}

Expected<std::unique_ptr<ArtifactStore>> RocksDbStore::Open(const StoreOptions& options) {
  if (options.path.empty()) return InvalidArgument("store path is empty");
  QDC_RETURN_IF_ERROR(CheckStoreNotInUse(options.path));
  QDC_RETURN_IF_ERROR(EnsureWritableDirectory(options.path));
  QDC_ASSIGN_OR_RETURN(DirectoryKind kind, ClassifyDirectory(options.path));
  if (kind == DirectoryKind::kForeign) {
    return FailedPrecondition("store directory '" + options.path +
                              "' holds files that are not part of a RocksDB database; refusing "
                              "to use it (choose an empty or new directory)");
  }
  for (int round = 0; round < 2; ++round) {
    OpenAttempt attempt = TryOpen(options);
    if (attempt.store) {
      attempt.store->StartHousekeeper();
      return std::unique_ptr<ArtifactStore>(std::move(attempt.store));
    }
    if (attempt.incompatible.empty()) return attempt.error;
    if (round == 1) {
      return Internal("freshly created store at '" + options.path +
                      "' is reported incompatible: " + attempt.incompatible);
    }
    QDC_ASSIGN_OR_RETURN(std::string moved_to, MoveAside(options.path, attempt.incompatible));
    (void)moved_to;
    QDC_RETURN_IF_ERROR(EnsureWritableDirectory(options.path));
  }
  return Internal("unreachable");
}

RocksDbStore::OpenAttempt RocksDbStore::TryOpen(const StoreOptions& options) {
  OpenAttempt out;
  DatabaseOpening opening = OpenStoreDatabase(options.path);
  if (!opening.database) {
    out.incompatible = std::move(opening.incompatible);
    out.error = std::move(opening.error);
    return out;
  }
  auto store = std::unique_ptr<RocksDbStore>(new RocksDbStore(options));
  store->database_ = std::move(opening.database);
  store->db_ = store->database_->db();
  store->artifacts_ = store->database_->cf(kArtifactsCf);
  store->stages_ = store->database_->cf(kStagesCf);
  store->aliases_ = store->database_->cf(kAliasesCf);
  store->access_ = store->database_->cf(kAccessCf);
  store->meta_ = store->database_->cf(kMetaCf);

  std::string reason;
  Status meta = store->InitializeOrLoadMeta(&reason);
  if (meta.ok() && reason.empty()) meta = store->AdvanceClockPastNewestAccess();
  if (!meta.ok()) {
    out.error = meta.WithContext("opening store '" + options.path + "'");
    return out;
  }
  if (!reason.empty()) {
    out.incompatible = reason;
    return out;  // store's destructor closes the database before the move
  }
  out.store = std::move(store);
  return out;
}

Status RocksDbStore::InitializeOrLoadMeta(std::string* incompatible_reason) {
  std::lock_guard<std::mutex> lock(write_mu_);
  std::string value;
  rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), meta_, kSchemaVersionKey, &value);
  if (s.IsNotFound()) {
    // A new database, or one whose creation stopped before the schema version
    // was written. Only an empty one may be adopted.
    for (rocksdb::ColumnFamilyHandle* cf : {artifacts_, stages_, aliases_, access_, meta_}) {
      std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions(), cf));
      it->SeekToFirst();
      if (!it->status().ok()) return FromRocks(it->status(), "scanning new store");
      if (it->Valid()) {
        *incompatible_reason = "holds data but no schema version";
        return Status::Ok();
      }
    }
    rocksdb::WriteBatch batch;
    QDC_RETURN_IF_ERROR(
        FromRocks(batch.Put(meta_, kSchemaVersionKey, EncodeFixed32(kSchemaVersion)), "batch"));
    QDC_RETURN_IF_ERROR(PutCounters(&batch, meta_, Counters{}));
    QDC_RETURN_IF_ERROR(WriteLocked(&batch, /*sync=*/true, "initializing store"));
    counters_ = Counters{};
    spdlog::info("created store at '{}' (schema version {})", path_, kSchemaVersion);
    return Status::Ok();
  }
  if (!s.ok()) {
    if (s.IsIOError()) return FromRocks(s, "reading schema version");
    *incompatible_reason = "cannot read schema version: " + s.ToString();
    return Status::Ok();
  }
  std::uint32_t version = 0;
  if (!DecodeFixed32(value, &version)) {
    *incompatible_reason = "unreadable schema version";
    return Status::Ok();
  }
  if (version != kSchemaVersion) {
    *incompatible_reason = "schema version " + std::to_string(version) + ", this build uses " +
                           std::to_string(kSchemaVersion);
    return Status::Ok();
  }

  QDC_ASSIGN_OR_RETURN(std::optional<Counters> stored, ReadCounters(*db_, meta_));
  if (stored) {
    counters_ = *stored;
    return Status::Ok();
  }
  spdlog::warn("store at '{}': counters missing or unreadable; recounting", path_);
  QDC_ASSIGN_OR_RETURN(Counters recounted, RecountCounters(*db_, meta_, aliases_));
  rocksdb::WriteBatch batch;
  return CommitLocked(&batch, recounted);
}

Status RocksDbStore::AdvanceClockPastNewestAccess() {
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions(), access_));
  it->SeekToLast();
  QDC_RETURN_IF_ERROR(FromRocks(it->status(), "reading the access index"));
  if (it->Valid()) {
    if (auto parsed = ParseAccessKey(it->key().ToStringView())) clock_.AdvancePast(parsed->tick);
  }
  return Status::Ok();
}

void RocksDbStore::StartHousekeeper() {
  Housekeeper::Jobs jobs;
  jobs.flush_access_times = [this] {
    Status s = FlushAccessTimes();
    if (!s.ok()) spdlog::warn("store '{}': access times not saved: {}", path_, s.ToString());
  };
  jobs.eviction_pass = [this] { RunEvictionPass(); };
  housekeeper_ = std::make_unique<Housekeeper>(access_flush_interval_, std::move(jobs));
  std::lock_guard<std::mutex> lock(write_mu_);
  const std::uint64_t cap = evictor_.max_bytes();
  if (cap != 0 && counters_.total_bytes() > cap) housekeeper_->RequestPass();
}

RocksDbStore::~RocksDbStore() {
  housekeeper_.reset();  // joins the thread after a last access-time flush
  database_.reset();
}

rocksdb::ColumnFamilyHandle* RocksDbStore::ValuesCf(EntryKind kind) const {
  return kind == EntryKind::kStage ? stages_ : artifacts_;
}

Status RocksDbStore::CommitLocked(rocksdb::WriteBatch* batch, const Counters& next, bool adds_only) {
  Status status = PutCounters(batch, meta_, next);
  if (status.ok()) status = WriteLocked(batch, sync_writes_, "store write");
  if (status.ok()) counters_ = next;
  // Written, deleted or in doubt: either way no longer what the cache holds.
  for (const std::string& key : uncached_after_commit_) record_cache_.Erase(key);
  uncached_after_commit_.clear();
  // After the write is visible (or failed, or in doubt): an answer read
  // before it must not be served again. What only adds cannot change an
  // answer whose items were all hits: their aliases and artifacts existed.
  if (!adds_only) ++generation_;
  return status;
}

Status RocksDbStore::WriteLocked(rocksdb::WriteBatch* batch, bool sync, std::string_view what) {
  return WriteResuming(*db_, batch, sync, resume_gate_, path_, what);
}

Expected<std::optional<EntryInfo>> RocksDbStore::ReadEntryInfo(
    EntryKind kind, std::string_view key, const rocksdb::ReadOptions& read_options) {
  std::string value;
  rocksdb::Status s = db_->Get(read_options, meta_, EntryInfoKey(kind, key), &value);
  if (s.IsNotFound()) return std::optional<EntryInfo>();
  QDC_RETURN_IF_ERROR(FromRocks(s, "reading entry info"));
  std::optional<EntryInfo> info = DecodeEntryInfo(value);
  if (!info) {
    spdlog::warn("store '{}': unreadable entry info for {}; counting it as 0 bytes", path_,
                 ToHex(key));
    info = EntryInfo{};
  }
  return info;
}

StoreStats RocksDbStore::Stats() {
  std::lock_guard<std::mutex> lock(write_mu_);
  StoreStats stats;
  counters_.Fill(&stats);
  stats.corrupt_dropped = corrupt_dropped_;
  stats.evictions = evictor_.evictions();
  stats.evicted_bytes = evictor_.evicted_bytes();
  stats.memory_cache_entries = record_cache_.entries();
  stats.memory_cache_bytes = record_cache_.bytes();
  return stats;
}

}  // namespace qdcache::store
