#include "store/rocksdb_store.h"

#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <set>

#include "common/digest.h"
#include "store/record_codec.h"
#include "store/rocksdb_layout.h"
#include "store/store_dir.h"

namespace qdcache::store {
namespace {

Status FromRocks(const rocksdb::Status& s, std::string_view what) {
  if (s.ok()) return Status::Ok();
  std::string message = std::string(what) + ": " + s.ToString();
  if (s.IsCorruption()) return DataLoss(std::move(message));
  if (s.IsInvalidArgument()) return InvalidArgument(std::move(message));
  if (s.IsNotSupported()) return Unimplemented(std::move(message));
  if (s.IsIOError() || s.IsBusy() || s.IsTimedOut() || s.IsTryAgain()) {
    return Unavailable(std::move(message));
  }
  return Internal(std::move(message));
}

std::uint64_t NowUnixMs() {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                        std::chrono::system_clock::now().time_since_epoch())
                                        .count());
}

std::uint64_t SubtractClamped(std::uint64_t a, std::uint64_t b) { return a > b ? a - b : 0; }

}  // namespace

struct RocksDbStore::OpenAttempt {
  std::unique_ptr<RocksDbStore> store;
  std::string incompatible;  // non-empty: move the directory aside and retry
  Status error;              // otherwise, why the store could not be opened
};

Expected<std::unique_ptr<ArtifactStore>> RocksDbStore::Open(const StoreOptions& options) {
  if (options.path.empty()) return InvalidArgument("store path is empty");
  QDC_RETURN_IF_ERROR(EnsureWritableDirectory(options.path));
  QDC_ASSIGN_OR_RETURN(DirectoryKind kind, ClassifyDirectory(options.path));
  if (kind == DirectoryKind::kForeign) {
    return FailedPrecondition("store directory '" + options.path +
                              "' holds files that are not part of a RocksDB database; refusing "
                              "to use it (choose an empty or new directory)");
  }
  for (int round = 0; round < 2; ++round) {
    OpenAttempt attempt = TryOpen(options);
    if (attempt.store) return std::unique_ptr<ArtifactStore>(std::move(attempt.store));
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

  auto store = std::unique_ptr<RocksDbStore>(new RocksDbStore());
  store->path_ = path;
  store->sync_writes_ = options.sync_writes;
  rocksdb::Status s =
      rocksdb::DB::Open(db_options, path, descriptors, &store->handles_, &store->db_);
  if (!s.ok()) {
    store->db_ = nullptr;
    store->handles_.clear();
    // I/O errors (permissions, a lock held by another process) are not the
    // store's fault: report them and leave the directory alone.
    if (s.IsIOError()) {
      out.error = FromRocks(s, "opening store '" + path + "'");
    } else {
      out.incompatible = "cannot open as a store: " + s.ToString();
    }
    return out;
  }
  store->artifacts_ = store->handles_[1];
  store->aliases_ = store->handles_[2];
  store->meta_ = store->handles_[3];

  std::string reason;
  Status meta = store->InitializeOrLoadMeta(&reason);
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

Status RocksDbStore::InitializeOrLoadMeta(std::string* incompatible_reason) {
  std::lock_guard<std::mutex> lock(write_mu_);
  std::string value;
  rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), meta_, kSchemaVersionKey, &value);
  if (s.IsNotFound()) {
    // A new database, or one whose creation stopped before the schema version
    // was written. Only an empty one may be adopted.
    for (rocksdb::ColumnFamilyHandle* cf : {artifacts_, aliases_, meta_}) {
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
    rocksdb::WriteOptions write_options;
    write_options.sync = true;
    for (auto key : {kArtifactCountKey, kAliasCountKey, kPayloadBytesKey}) {
      QDC_RETURN_IF_ERROR(FromRocks(batch.Put(meta_, key, EncodeFixed64(0)), "batch"));
    }
    QDC_RETURN_IF_ERROR(FromRocks(db_->Write(write_options, &batch), "initializing store"));
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

  std::uint64_t* fields[] = {&counters_.artifacts, &counters_.aliases, &counters_.payload_bytes};
  const std::string_view keys[] = {kArtifactCountKey, kAliasCountKey, kPayloadBytesKey};
  bool counters_ok = true;
  for (int i = 0; i < 3; ++i) {
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
    for (it->Seek(kSizePrefix); it->Valid() && it->key().starts_with(kSizePrefix); it->Next()) {
      std::uint64_t size = 0;
      if (DecodeFixed64(it->value().ToStringView(), &size)) out->payload_bytes += size;
      ++out->artifacts;
    }
    QDC_RETURN_IF_ERROR(FromRocks(it->status(), "recounting artifacts"));
  }
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions(), aliases_));
  for (it->SeekToFirst(); it->Valid(); it->Next()) ++out->aliases;
  return FromRocks(it->status(), "recounting aliases");
}

RocksDbStore::~RocksDbStore() { CloseDb(); }

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

Status RocksDbStore::CommitLocked(rocksdb::WriteBatch* batch, const Counters& next) {
  QDC_RETURN_IF_ERROR(
      FromRocks(batch->Put(meta_, kArtifactCountKey, EncodeFixed64(next.artifacts)), "batch"));
  QDC_RETURN_IF_ERROR(
      FromRocks(batch->Put(meta_, kAliasCountKey, EncodeFixed64(next.aliases)), "batch"));
  QDC_RETURN_IF_ERROR(
      FromRocks(batch->Put(meta_, kPayloadBytesKey, EncodeFixed64(next.payload_bytes)), "batch"));
  rocksdb::WriteOptions write_options;
  write_options.sync = sync_writes_;
  QDC_RETURN_IF_ERROR(FromRocks(db_->Write(write_options, batch), "store write"));
  counters_ = next;
  return Status::Ok();
}

Expected<std::optional<std::uint64_t>> RocksDbStore::StoredSizeLocked(const ArtifactKey& key) {
  std::string value;
  rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), meta_, SizeKey(key), &value);
  if (s.IsNotFound()) return std::optional<std::uint64_t>();
  QDC_RETURN_IF_ERROR(FromRocks(s, "reading size entry"));
  std::uint64_t size = 0;
  if (!DecodeFixed64(value, &size)) {
    spdlog::warn("store '{}': unreadable size entry for {}; counting it as 0", path_, ToHex(key));
  }
  return std::optional<std::uint64_t>(size);
}

Expected<bool> RocksDbStore::AliasExistsLocked(const std::string& encoded_alias) {
  rocksdb::PinnableSlice value;
  rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), aliases_, encoded_alias, &value);
  if (s.IsNotFound()) return false;
  QDC_RETURN_IF_ERROR(FromRocks(s, "reading alias"));
  return true;
}

Expected<std::optional<ArtifactRecord>> RocksDbStore::Get(const ArtifactKey& key) {
  rocksdb::PinnableSlice value;
  rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), artifacts_, key, &value);
  if (s.IsNotFound()) return std::optional<ArtifactRecord>();
  if (s.IsCorruption()) {
    DropCorruptArtifact(key, std::nullopt, s.ToString());
    return std::optional<ArtifactRecord>();
  }
  QDC_RETURN_IF_ERROR(FromRocks(s, "reading artifact"));

  ArtifactRecord record;
  Status check = DecodeRecord(value.ToStringView(), &record);
  if (check.ok()) check = VerifyRecord(record, key);
  if (!check.ok()) {
    DropCorruptArtifact(key, value.ToString(), check.message());
    return std::optional<ArtifactRecord>();
  }
  return std::optional<ArtifactRecord>(std::move(record));
}

Status RocksDbStore::Put(const ArtifactRecord& record, const std::optional<AliasKey>& alias) {
  ArtifactRecord stored = record;
  QDC_RETURN_IF_ERROR(ValidateForPut(&stored, NowUnixMs()));
  const std::string value = EncodeRecord(stored);
  const std::uint64_t size = AccountedBytes(stored);
  const std::string alias_key = alias ? EncodeAliasKey(*alias) : std::string();

  std::lock_guard<std::mutex> lock(write_mu_);
  QDC_ASSIGN_OR_RETURN(std::optional<std::uint64_t> old_size, StoredSizeLocked(stored.key));
  Counters next = counters_;
  if (old_size) {
    next.payload_bytes = SubtractClamped(next.payload_bytes, *old_size);
  } else {
    ++next.artifacts;
  }
  next.payload_bytes += size;

  rocksdb::WriteBatch batch;
  QDC_RETURN_IF_ERROR(FromRocks(batch.Put(artifacts_, stored.key, value), "batch"));
  QDC_RETURN_IF_ERROR(
      FromRocks(batch.Put(meta_, SizeKey(stored.key), EncodeFixed64(size)), "batch"));
  if (alias) {
    QDC_ASSIGN_OR_RETURN(bool alias_exists, AliasExistsLocked(alias_key));
    if (!alias_exists) ++next.aliases;
    QDC_RETURN_IF_ERROR(FromRocks(
        batch.Put(aliases_, alias_key, EncodeAliasValue(alias_key, stored.key)), "batch"));
  }
  return CommitLocked(&batch, next);
}

Expected<std::optional<ArtifactKey>> RocksDbStore::GetAlias(const AliasKey& alias) {
  const std::string alias_key = EncodeAliasKey(alias);
  rocksdb::PinnableSlice value;
  rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), aliases_, alias_key, &value);
  if (s.IsNotFound()) return std::optional<ArtifactKey>();
  QDC_RETURN_IF_ERROR(FromRocks(s, "reading alias"));
  ArtifactKey key;
  Status check = DecodeAliasValue(alias_key, value.ToStringView(), &key);
  if (!check.ok()) {
    DropCorruptAlias(alias_key, value.ToString(), check.message());
    return std::optional<ArtifactKey>();
  }
  return std::optional<ArtifactKey>(std::move(key));
}

Status RocksDbStore::PutAlias(const AliasKey& alias, const ArtifactKey& key) {
  if (key.empty()) return InvalidArgument("alias target key is empty");
  const std::string alias_key = EncodeAliasKey(alias);
  const std::string value = EncodeAliasValue(alias_key, key);

  std::lock_guard<std::mutex> lock(write_mu_);
  QDC_ASSIGN_OR_RETURN(bool exists, AliasExistsLocked(alias_key));
  Counters next = counters_;
  if (!exists) ++next.aliases;
  rocksdb::WriteBatch batch;
  QDC_RETURN_IF_ERROR(FromRocks(batch.Put(aliases_, alias_key, value), "batch"));
  return CommitLocked(&batch, next);
}

Status RocksDbStore::Delete(const ArtifactKey& key) {
  std::lock_guard<std::mutex> lock(write_mu_);
  QDC_ASSIGN_OR_RETURN(std::optional<std::uint64_t> old_size, StoredSizeLocked(key));
  Counters next = counters_;
  if (old_size) {
    next.artifacts = SubtractClamped(next.artifacts, 1);
    next.payload_bytes = SubtractClamped(next.payload_bytes, *old_size);
  }
  rocksdb::WriteBatch batch;
  QDC_RETURN_IF_ERROR(FromRocks(batch.Delete(artifacts_, key), "batch"));
  QDC_RETURN_IF_ERROR(FromRocks(batch.Delete(meta_, SizeKey(key)), "batch"));
  return CommitLocked(&batch, next);
}

StoreStats RocksDbStore::Stats() {
  std::lock_guard<std::mutex> lock(write_mu_);
  StoreStats stats;
  stats.artifacts = counters_.artifacts;
  stats.aliases = counters_.aliases;
  stats.payload_bytes = counters_.payload_bytes;
  stats.corrupt_dropped = corrupt_dropped_;
  return stats;
}

void RocksDbStore::DropCorruptArtifact(const ArtifactKey& key,
                                       const std::optional<std::string>& observed,
                                       const std::string& reason) {
  std::lock_guard<std::mutex> lock(write_mu_);
  // Re-read under the write lock: a concurrent Put may have replaced the bad
  // value with a good one, which must not be deleted.
  rocksdb::PinnableSlice current;
  rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), artifacts_, key, &current);
  if (s.IsNotFound()) return;
  if (s.ok() && (!observed || current.ToStringView() != *observed)) return;
  if (!s.ok() && !s.IsCorruption()) {
    spdlog::error("store '{}': cannot re-read corrupt artifact {}: {}", path_, ToHex(key),
                  s.ToString());
    return;
  }
  Expected<std::optional<std::uint64_t>> old_size = StoredSizeLocked(key);
  Counters next = counters_;
  if (old_size.ok() && old_size.value()) {
    next.artifacts = SubtractClamped(next.artifacts, 1);
    next.payload_bytes = SubtractClamped(next.payload_bytes, *old_size.value());
  }
  rocksdb::WriteBatch batch;
  Status status = FromRocks(batch.Delete(artifacts_, key), "batch");
  if (status.ok()) status = FromRocks(batch.Delete(meta_, SizeKey(key)), "batch");
  if (status.ok()) status = CommitLocked(&batch, next);
  if (!status.ok()) {
    spdlog::error("store '{}': corrupt artifact {} ({}) could not be deleted: {}", path_,
                  ToHex(key), reason, status.ToString());
    return;
  }
  ++corrupt_dropped_;
  spdlog::error("store '{}': dropped corrupt artifact {}: {}", path_, ToHex(key), reason);
}

void RocksDbStore::DropCorruptAlias(const std::string& encoded_alias, const std::string& observed,
                                    const std::string& reason) {
  std::lock_guard<std::mutex> lock(write_mu_);
  rocksdb::PinnableSlice current;
  rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), aliases_, encoded_alias, &current);
  if (!s.ok() || current.ToStringView() != observed) return;
  Counters next = counters_;
  next.aliases = SubtractClamped(next.aliases, 1);
  rocksdb::WriteBatch batch;
  Status status = FromRocks(batch.Delete(aliases_, encoded_alias), "batch");
  if (status.ok()) status = CommitLocked(&batch, next);
  if (!status.ok()) {
    spdlog::error("store '{}': corrupt alias ({}) could not be deleted: {}", path_, reason,
                  status.ToString());
    return;
  }
  ++corrupt_dropped_;
  spdlog::error("store '{}': dropped corrupt alias: {}", path_, reason);
}

}  // namespace qdcache::store
