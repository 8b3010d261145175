// Opening a store, its metadata and counters, and its lifecycle.
#include "store/rocksdb_store.h"

#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>
#include <spdlog/spdlog.h>

#include <filesystem>
#include <set>

#include "common/digest.h"
#include "store/record_codec.h"
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
  const std::string& path = options.path;
  const rocksdb::DBOptions db_options = MakeDbOptions();
  const std::vector<rocksdb::ColumnFamilyDescriptor> descriptors = MakeColumnFamilyDescriptors();

  // A database that exists must have exactly our column families; otherwise
  // create_missing_column_families would graft ours onto a foreign database.
  std::error_code ec;
  if (std::filesystem::exists(std::filesystem::path(path) / "CURRENT", ec)) {
    std::vector<std::string> existing;
    rocksdb::Status s = rocksdb::DB::ListColumnFamilies(db_options, path, &existing);
    if (!s.ok()) {
      if (s.IsIOError()) {
        out.error = FromRocks(s, "listing column families of '" + path + "'");
      } else {
        out.incompatible = "cannot list column families: " + s.ToString();
      }
      return out;
    }
    std::set<std::string> want;
    for (const auto& d : descriptors) want.insert(d.name);
    if (std::set<std::string>(existing.begin(), existing.end()) != want) {
      std::string names;
      for (const auto& n : existing) names += (names.empty() ? "" : ",") + n;
      out.incompatible = "unexpected column families [" + names + "]";
      return out;
    }
  }

  auto store = std::unique_ptr<RocksDbStore>(new RocksDbStore(options));
  rocksdb::Status s =
      rocksdb::DB::Open(db_options, path, descriptors, &store->handles_, &store->db_);
  if (!s.ok()) {
    store->db_ = nullptr;
    store->handles_.clear();
    // I/O errors (permissions, a lock held by another process) are not the
    // store's fault: report them and leave the directory alone.
    if (s.IsIOError() && s.ToString().find("lock file") != std::string::npos) {
      // Another process took the lock since CheckStoreNotInUse looked.
      out.error = CheckStoreNotInUse(path);
      if (out.error.ok()) out.error = FailedPrecondition("store '" + path + "' is in use by another process");
    } else if (s.IsIOError()) {
      out.error = FromRocks(s, "opening store '" + path + "'");
    } else {
      out.incompatible = "cannot open as a store: " + s.ToString();
    }
    return out;
  }
  if (std::string damaged = store->DamagedLiveFile(); !damaged.empty()) {
    out.incompatible = damaged;
    return out;  // store's destructor closes the database before the move
  }
  store->artifacts_ = store->handles_[kArtifactsCf];
  store->stages_ = store->handles_[kStagesCf];
  store->aliases_ = store->handles_[kAliasesCf];
  store->access_ = store->handles_[kAccessCf];
  store->meta_ = store->handles_[kMetaCf];

  std::string reason;
  Status meta = store->InitializeOrLoadMeta(&reason);
  if (meta.ok() && reason.empty()) meta = store->AdvanceClockPastNewestAccess();
  if (!meta.ok()) {
    out.error = meta.WithContext("opening store '" + path + "'");
    return out;
  }
  if (!reason.empty()) {
    out.incompatible = reason;
    return out;  // store's destructor closes the database before the move
  }
  out.store = std::move(store);
  return out;
}

std::string RocksDbStore::DamagedLiveFile() const {
  // RocksDB checks table sizes when it opens a store, not blob file sizes: a
  // blob file cut short (what a power cut can do to a file the disk had not
  // written yet) opens fine and then fails every flush and compaction that
  // reads it, which stops every write. Compare what is on disk with what the
  // MANIFEST recorded.
  auto mismatch = [](const std::string& path, std::uint64_t recorded) -> std::string {
    std::error_code ec;
    const std::uintmax_t actual = std::filesystem::file_size(path, ec);
    if (ec) return "live file " + path + " cannot be read: " + ec.message();
    if (actual == recorded) return "";
    return "live file " + path + " is " + std::to_string(actual) + " bytes, the store recorded " +
           std::to_string(recorded) + " (damaged: cut short by a power cut or a disk error)";
  };
  for (rocksdb::ColumnFamilyHandle* cf : handles_) {
    rocksdb::ColumnFamilyMetaData meta;
    db_->GetColumnFamilyMetaData(cf, &meta);
    for (const rocksdb::BlobMetaData& blob : meta.blob_files) {
      std::string why = mismatch(blob.blob_file_path + "/" + blob.blob_file_name, blob.blob_file_size);
      if (!why.empty()) return why;
    }
    for (const rocksdb::LevelMetaData& level : meta.levels) {
      for (const rocksdb::SstFileMetaData& table : level.files) {
        std::string why = mismatch(table.directory + "/" + table.relative_filename, table.size);
        if (!why.empty()) return why;
      }
    }
  }
  return "";
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
    QDC_RETURN_IF_ERROR(AddCounters(&batch, Counters{}));
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

  std::uint64_t* fields[] = {&counters_.artifacts, &counters_.aliases, &counters_.payload_bytes,
                             &counters_.stages, &counters_.stage_bytes};
  const std::string_view keys[] = {kArtifactCountKey, kAliasCountKey, kPayloadBytesKey,
                                   kStageCountKey, kStageBytesKey};
  bool counters_ok = true;
  for (std::size_t i = 0; i < std::size(keys); ++i) {
    s = db_->Get(rocksdb::ReadOptions(), meta_, keys[i], &value);
    if (!s.ok() && !s.IsNotFound()) return FromRocks(s, "reading counters");
    if (!s.ok() || !DecodeFixed64(value, fields[i])) counters_ok = false;
  }
  if (!counters_ok) {
    spdlog::warn("store at '{}': counters missing or unreadable; recounting", path_);
    Counters recounted;
    QDC_RETURN_IF_ERROR(RecountLocked(&recounted));
    rocksdb::WriteBatch batch;
    QDC_RETURN_IF_ERROR(CommitLocked(&batch, recounted));
  }
  return Status::Ok();
}

Status RocksDbStore::RecountLocked(Counters* out) {
  *out = Counters{};
  {
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions(), meta_));
    for (it->Seek(kEntryPrefix); it->Valid() && it->key().starts_with(kEntryPrefix); it->Next()) {
      const std::string_view key = it->key().ToStringView();
      const std::optional<EntryInfo> info = DecodeEntryInfo(it->value().ToStringView());
      const std::uint64_t bytes = info ? info->bytes : 0;
      if (key.size() > kEntryPrefix.size() &&
          key[kEntryPrefix.size()] == static_cast<char>(EntryKind::kStage)) {
        ++out->stages;
        out->stage_bytes += bytes;
      } else {
        ++out->artifacts;
        out->payload_bytes += bytes;
      }
    }
    QDC_RETURN_IF_ERROR(FromRocks(it->status(), "recounting entries"));
  }
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions(), aliases_));
  for (it->SeekToFirst(); it->Valid(); it->Next()) ++out->aliases;
  return FromRocks(it->status(), "recounting aliases");
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
  CloseDb();
}

void RocksDbStore::CloseDb() {
  if (db_ == nullptr) return;
  for (rocksdb::ColumnFamilyHandle* handle : handles_) {
    (void)db_->DestroyColumnFamilyHandle(handle);
  }
  handles_.clear();
  rocksdb::Status s = db_->Close();
  if (!s.ok()) spdlog::warn("closing store '{}': {}", path_, s.ToString());
  delete db_;
  db_ = nullptr;
}

rocksdb::ColumnFamilyHandle* RocksDbStore::ValuesCf(EntryKind kind) const {
  return kind == EntryKind::kStage ? stages_ : artifacts_;
}

Status RocksDbStore::AddCounters(rocksdb::WriteBatch* batch, const Counters& next) {
  const std::pair<std::string_view, std::uint64_t> counters[] = {
      {kArtifactCountKey, next.artifacts},
      {kAliasCountKey, next.aliases},
      {kPayloadBytesKey, next.payload_bytes},
      {kStageCountKey, next.stages},
      {kStageBytesKey, next.stage_bytes}};
  for (const auto& [key, value] : counters) {
    QDC_RETURN_IF_ERROR(FromRocks(batch->Put(meta_, key, EncodeFixed64(value)), "batch"));
  }
  return Status::Ok();
}

Status RocksDbStore::CommitLocked(rocksdb::WriteBatch* batch, const Counters& next) {
  Status status = AddCounters(batch, next);
  if (status.ok()) status = WriteLocked(batch, sync_writes_, "store write");
  if (status.ok()) counters_ = next;
  // Written, deleted or in doubt: either way no longer what the cache holds.
  for (const std::string& key : uncached_after_commit_) record_cache_.Erase(key);
  uncached_after_commit_.clear();
  return status;
}

Status RocksDbStore::WriteLocked(rocksdb::WriteBatch* batch, bool sync, std::string_view what) {
  rocksdb::WriteOptions write_options;  // disableWAL stays false: see MakeDbOptions
  write_options.sync = sync;
  rocksdb::Status s = db_->Write(write_options, batch);
  if (s.ok() || !IsResumable(s)) return FromRocks(s, what);
  const ResumeGate::Clock::time_point now = ResumeGate::Clock::now();
  const std::optional<std::uint64_t> free_bytes = FreeBytes(path_);
  if (!resume_gate_.ShouldTry(now, free_bytes)) return FromRocks(s, what);
  rocksdb::Status resumed = db_->Resume();
  if (!resumed.ok()) {
    resume_gate_.Failed(now, free_bytes);
    spdlog::warn("store '{}': cannot write ({}); resuming failed: {}", path_, s.ToString(),
                 resumed.ToString());
    return FromRocks(s, what);
  }
  resume_gate_.Succeeded();
  spdlog::info("store '{}': writing again after: {}", path_, s.ToString());
  return FromRocks(db_->Write(write_options, batch), what);
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
