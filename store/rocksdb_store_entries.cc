// Reads and writes of artifacts, stage outputs and aliases, with exact
// accounting, verification on read and backpressure after writes.
#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>
#include <spdlog/spdlog.h>

#include "common/digest.h"
#include "store/record_codec.h"
#include "store/rocksdb_layout.h"
#include "store/rocksdb_status.h"
#include "store/rocksdb_store.h"

namespace qdcache::store {
namespace {

const char* KindName(EntryKind kind) {
  return kind == EntryKind::kStage ? "stage output" : "artifact";
}

}  // namespace

Status RocksDbStore::PutEntryLocked(EntryKind kind, const std::string& key,
                                    const std::string& value, std::uint64_t bytes,
                                    rocksdb::WriteBatch* batch, Counters* next, bool* replaced) {
  QDC_ASSIGN_OR_RETURN(std::optional<EntryInfo> old,
                       ReadEntryInfo(kind, key, rocksdb::ReadOptions()));
  // The entry info is written and removed in the same batches as the
  // value; a damaged store may hold a value without it, which lookups read
  // all the same: so does a value the filters cannot rule out (no I/O).
  if (replaced != nullptr) {
    std::string found;
    *replaced = old.has_value() || db_->KeyMayExist(rocksdb::ReadOptions(), ValuesCf(kind), key, &found);
  }
  if (old) {
    QDC_RETURN_IF_ERROR(
        FromRocks(batch->Delete(access_, AccessKey(old->last_access, kind, key)), "batch"));
  }
  next->Written(kind, bytes, old ? &old->bytes : nullptr);
  if (kind == EntryKind::kArtifact) uncached_after_commit_.push_back(key);
  const EntryInfo info{bytes, clock_.Tick()};
  QDC_RETURN_IF_ERROR(FromRocks(batch->Put(ValuesCf(kind), key, value), "batch"));
  QDC_RETURN_IF_ERROR(
      FromRocks(batch->Put(meta_, EntryInfoKey(kind, key), EncodeEntryInfo(info)), "batch"));
  QDC_RETURN_IF_ERROR(FromRocks(
      batch->Put(access_, AccessKey(info.last_access, kind, key), EncodeFixed64(bytes)), "batch"));
  evictor_.Written(kind, key, bytes, info.last_access);
  return Status::Ok();
}

Status RocksDbStore::RemoveEntryLocked(EntryKind kind, std::string_view key, const EntryInfo& info,
                                       rocksdb::WriteBatch* batch, Counters* next) {
  if (kind == EntryKind::kArtifact) uncached_after_commit_.emplace_back(key);
  QDC_RETURN_IF_ERROR(FromRocks(batch->Delete(ValuesCf(kind), key), "batch"));
  QDC_RETURN_IF_ERROR(FromRocks(batch->Delete(meta_, EntryInfoKey(kind, key)), "batch"));
  QDC_RETURN_IF_ERROR(
      FromRocks(batch->Delete(access_, AccessKey(info.last_access, kind, key)), "batch"));
  next->Removed(kind, info.bytes);
  return Status::Ok();
}

Expected<bool> RocksDbStore::AliasExistsLocked(const std::string& encoded_alias) {
  rocksdb::PinnableSlice value;
  rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), aliases_, encoded_alias, &value);
  if (s.IsNotFound()) return false;
  QDC_RETURN_IF_ERROR(FromRocks(s, "reading alias"));
  return true;
}

Expected<std::optional<ArtifactRecord>> RocksDbStore::ReadArtifact(
    const ArtifactKey& key, const rocksdb::ReadOptions& read_options) {
  rocksdb::PinnableSlice value;
  rocksdb::Status s = db_->Get(read_options, artifacts_, key, &value);
  if (s.IsNotFound()) return std::optional<ArtifactRecord>();
  if (s.IsCorruption()) {
    DropCorruptEntry(EntryKind::kArtifact, key, std::nullopt, s.ToString());
    return std::optional<ArtifactRecord>();
  }
  QDC_RETURN_IF_ERROR(FromRocks(s, "reading artifact"));

  // Decoding copies everything out of `value`: what is returned owns its
  // bytes, whatever eviction does next.
  ArtifactRecord record;
  Status check = DecodeRecord(value.ToStringView(), &record);
  if (check.ok()) check = VerifyRecord(record, key);
  if (!check.ok()) {
    DropCorruptEntry(EntryKind::kArtifact, key, value.ToString(), check.message());
    return std::optional<ArtifactRecord>();
  }
  return std::optional<ArtifactRecord>(std::move(record));
}

Status RocksDbStore::ReadRecord(const ArtifactKey& key, std::shared_ptr<const ArtifactRecord>* shared,
                               std::optional<ArtifactRecord>* owned) {
  if ((*shared = record_cache_.Find(key))) {
    accesses_.Record(EntryKind::kArtifact, key, clock_.Tick());
    return Status::Ok();
  }
  const std::uint64_t generation = record_cache_.generation();
  QDC_ASSIGN_OR_RETURN(*owned, ReadArtifact(key, rocksdb::ReadOptions()));
  if (!owned->has_value()) return Status::Ok();
  accesses_.Record(EntryKind::kArtifact, key, clock_.Tick());
  if (record_cache_.Admits(**owned)) {
    *shared = std::make_shared<const ArtifactRecord>(std::move(**owned));
    owned->reset();
    record_cache_.Insert(*shared, generation);
  }
  return Status::Ok();
}

void RocksDbStore::RecordAccesses(const std::vector<ArtifactKey>& keys) {
  for (const ArtifactKey& key : keys) accesses_.Record(EntryKind::kArtifact, key, clock_.Tick());
}

Expected<std::shared_ptr<const ArtifactRecord>> RocksDbStore::GetShared(const ArtifactKey& key) {
  std::shared_ptr<const ArtifactRecord> shared;
  std::optional<ArtifactRecord> owned;
  QDC_RETURN_IF_ERROR(ReadRecord(key, &shared, &owned));
  if (owned) shared = std::make_shared<const ArtifactRecord>(std::move(*owned));
  return shared;
}

Expected<std::optional<ArtifactRecord>> RocksDbStore::Get(const ArtifactKey& key) {
  std::shared_ptr<const ArtifactRecord> shared;
  std::optional<ArtifactRecord> owned;
  QDC_RETURN_IF_ERROR(ReadRecord(key, &shared, &owned));
  if (shared) return std::optional<ArtifactRecord>(*shared);
  return owned;
}

Status RocksDbStore::Put(const ArtifactRecord& record, const std::optional<AliasKey>& alias) {
  ArtifactRecord stored = record;
  QDC_RETURN_IF_ERROR(ValidateForPut(&stored, clock_.NowMicros() / 1000));
  const std::string value = EncodeRecord(stored);
  const std::uint64_t size = AccountedBytes(stored);
  const std::string alias_key = alias ? EncodeAliasKey(*alias) : std::string();

  std::uint64_t total_after = 0;
  {
    std::lock_guard<std::mutex> lock(write_mu_);
    Counters next = counters_;
    rocksdb::WriteBatch batch;
    bool replaced = false;
    QDC_RETURN_IF_ERROR(
        PutEntryLocked(EntryKind::kArtifact, stored.key, value, size, &batch, &next, &replaced));
    if (alias) {
      QDC_ASSIGN_OR_RETURN(bool alias_exists, AliasExistsLocked(alias_key));
      if (!alias_exists) ++next.aliases;
      replaced = replaced || alias_exists;
      QDC_RETURN_IF_ERROR(FromRocks(
          batch.Put(aliases_, alias_key, EncodeAliasValue(alias_key, stored.key)), "batch"));
    }
    QDC_RETURN_IF_ERROR(CommitLocked(&batch, next, /*adds_only=*/!replaced));
    total_after = next.total_bytes();
  }
  evictor_.AfterWrite(total_after, size, *housekeeper_);
  return Status::Ok();
}

Expected<std::optional<std::string>> RocksDbStore::GetStage(const std::string& key) {
  rocksdb::PinnableSlice stored;
  rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), stages_, key, &stored);
  if (s.IsNotFound()) return std::optional<std::string>();
  if (s.IsCorruption()) {
    DropCorruptEntry(EntryKind::kStage, key, std::nullopt, s.ToString());
    return std::optional<std::string>();
  }
  QDC_RETURN_IF_ERROR(FromRocks(s, "reading stage output"));
  std::string value;
  Status check = DecodeStageValue(key, stored.ToStringView(), &value);
  if (!check.ok()) {
    DropCorruptEntry(EntryKind::kStage, key, stored.ToString(), check.message());
    return std::optional<std::string>();
  }
  accesses_.Record(EntryKind::kStage, key, clock_.Tick());
  return std::optional<std::string>(std::move(value));
}

Status RocksDbStore::PutStage(const std::string& key, std::string_view value) {
  if (key.empty()) return InvalidArgument("stage key is empty");
  const std::string stored = EncodeStageValue(key, value);
  const std::uint64_t size = value.size();
  std::uint64_t total_after = 0;
  {
    std::lock_guard<std::mutex> lock(write_mu_);
    Counters next = counters_;
    rocksdb::WriteBatch batch;
    QDC_RETURN_IF_ERROR(PutEntryLocked(EntryKind::kStage, key, stored, size, &batch, &next));
    QDC_RETURN_IF_ERROR(CommitLocked(&batch, next, /*adds_only=*/true));  // lookups read no stage
    total_after = next.total_bytes();
  }
  evictor_.AfterWrite(total_after, size, *housekeeper_);
  return Status::Ok();
}

Expected<std::optional<AliasValue>> RocksDbStore::GetAliasValue(const AliasKey& alias) {
  const std::string alias_key = EncodeAliasKey(alias);
  rocksdb::PinnableSlice value;
  rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), aliases_, alias_key, &value);
  if (s.IsNotFound()) return std::optional<AliasValue>();
  QDC_RETURN_IF_ERROR(FromRocks(s, "reading alias"));
  AliasValue decoded;
  Status check = DecodeAliasValue(alias_key, value.ToStringView(), &decoded);
  if (!check.ok()) {
    DropCorruptAlias(alias_key, value.ToString(), check.message());
    return std::optional<AliasValue>();
  }
  return std::optional<AliasValue>(std::move(decoded));
}

Status RocksDbStore::PutAliasValue(const AliasKey& alias, const AliasValue& target) {
  if (target.key.empty()) return InvalidArgument("alias target key is empty");
  const std::string alias_key = EncodeAliasKey(alias);
  const std::string value = EncodeAliasValue(alias_key, target);

  std::lock_guard<std::mutex> lock(write_mu_);
  QDC_ASSIGN_OR_RETURN(bool exists, AliasExistsLocked(alias_key));
  Counters next = counters_;
  if (!exists) ++next.aliases;
  rocksdb::WriteBatch batch;
  QDC_RETURN_IF_ERROR(FromRocks(batch.Put(aliases_, alias_key, value), "batch"));
  return CommitLocked(&batch, next, /*adds_only=*/!exists);
}

Status RocksDbStore::Delete(const ArtifactKey& key) {
  std::lock_guard<std::mutex> lock(write_mu_);
  QDC_ASSIGN_OR_RETURN(std::optional<EntryInfo> info,
                       ReadEntryInfo(EntryKind::kArtifact, key, rocksdb::ReadOptions()));
  Counters next = counters_;
  rocksdb::WriteBatch batch;
  if (info) {
    QDC_RETURN_IF_ERROR(RemoveEntryLocked(EntryKind::kArtifact, key, *info, &batch, &next));
  } else {
    uncached_after_commit_.push_back(key);
    QDC_RETURN_IF_ERROR(FromRocks(batch.Delete(artifacts_, key), "batch"));
  }
  return CommitLocked(&batch, next);
}

bool RocksDbStore::DropCorruptEntry(EntryKind kind, const std::string& key,
                                    const std::optional<std::string>& observed,
                                    const std::string& reason) {
  std::lock_guard<std::mutex> lock(write_mu_);
  // Re-read under the write lock: a concurrent Put may have replaced the bad
  // value with a good one, which must not be deleted.
  rocksdb::PinnableSlice current;
  rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), ValuesCf(kind), key, &current);
  if (s.IsNotFound()) return false;
  if (s.ok() && (!observed || current.ToStringView() != *observed)) return false;
  if (!s.ok() && !s.IsCorruption()) {
    spdlog::error("store '{}': cannot re-read corrupt {} {}: {}", path_, KindName(kind), ToHex(key),
                  s.ToString());
    return false;
  }
  Expected<std::optional<EntryInfo>> info = ReadEntryInfo(kind, key, rocksdb::ReadOptions());
  Counters next = counters_;
  rocksdb::WriteBatch batch;
  Status status;
  if (info.ok() && info->has_value()) {
    status = RemoveEntryLocked(kind, key, **info, &batch, &next);
  } else {
    if (kind == EntryKind::kArtifact) uncached_after_commit_.push_back(key);
    status = FromRocks(batch.Delete(ValuesCf(kind), key), "batch");
  }
  if (status.ok()) status = CommitLocked(&batch, next);
  if (!status.ok()) {
    spdlog::error("store '{}': corrupt {} {} ({}) could not be deleted: {}", path_, KindName(kind),
                  ToHex(key), reason, status.ToString());
    return false;
  }
  ++corrupt_dropped_;
  spdlog::error("store '{}': dropped corrupt {} {}: {}", path_, KindName(kind), ToHex(key), reason);
  return true;
}

bool RocksDbStore::DropCorruptAlias(const std::string& encoded_alias, const std::string& observed,
                                    const std::string& reason) {
  std::lock_guard<std::mutex> lock(write_mu_);
  rocksdb::PinnableSlice current;
  rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), aliases_, encoded_alias, &current);
  if (!s.ok() || current.ToStringView() != observed) return false;
  Counters next = counters_;
  next.AliasRemoved();
  rocksdb::WriteBatch batch;
  Status status = FromRocks(batch.Delete(aliases_, encoded_alias), "batch");
  if (status.ok()) status = CommitLocked(&batch, next);
  if (!status.ok()) {
    spdlog::error("store '{}': corrupt alias ({}) could not be deleted: {}", path_, reason,
                  status.ToString());
    return false;
  }
  ++corrupt_dropped_;
  spdlog::error("store '{}': dropped corrupt alias: {}", path_, reason);
  return true;
}

}  // namespace qdcache::store
