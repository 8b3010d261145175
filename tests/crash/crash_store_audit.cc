// AuditStore: the store's own bookkeeping, read straight from RocksDB.
#include <rocksdb/db.h>

#include <map>
#include <memory>
#include <utility>

#include "common/digest.h"
#include "store/entry_index.h"
#include "store/record_codec.h"
#include "store/rocksdb_layout.h"
#include "tests/crash/crash_check.h"

namespace qdcache::crash {
namespace {

using store::EntryKind;
using EntryId = std::pair<EntryKind, std::string>;

std::string Name(const EntryId& id) {
  return std::string(id.first == EntryKind::kStage ? "stage " : "artifact ") + ToHex(id.second);
}

class ReadOnlyDb {
 public:
  explicit ReadOnlyDb(const std::string& path) {
    rocksdb::DBOptions options = store::MakeDbOptions();
    options.create_if_missing = false;
    rocksdb::DB* db = nullptr;
    status_ = rocksdb::DB::OpenForReadOnly(options, path, store::MakeColumnFamilyDescriptors(),
                                           &handles_, &db);
    db_.reset(db);
  }
  ~ReadOnlyDb() {
    for (auto* h : handles_) (void)db_->DestroyColumnFamilyHandle(h);
  }
  const rocksdb::Status& status() const { return status_; }

  // Calls fn(key, value) for every entry of column family `cf`.
  template <typename Fn>
  rocksdb::Status ForEach(store::ColumnFamilyIndex cf, Fn fn) {
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions(), handles_[cf]));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      fn(it->key().ToStringView(), it->value().ToStringView());
    }
    return it->status();
  }

 private:
  rocksdb::Status status_;
  std::vector<rocksdb::ColumnFamilyHandle*> handles_;
  std::unique_ptr<rocksdb::DB> db_;
};

}  // namespace

std::vector<std::string> AuditStore(const std::string& store_dir) {
  std::vector<std::string> violations;
  ReadOnlyDb db(store_dir);
  if (!db.status().ok()) return {"cannot open the store read-only: " + db.status().ToString()};

  std::map<EntryId, std::uint64_t> values;  // -> value count (always 1)
  std::uint64_t aliases = 0;
  std::map<EntryId, store::EntryInfo> infos;
  std::map<std::string, std::uint64_t> counters;
  std::map<EntryId, std::vector<std::uint64_t>> index;  // -> ticks
  rocksdb::Status s;
  s = db.ForEach(store::kArtifactsCf, [&](std::string_view k, std::string_view) {
    ++values[{EntryKind::kArtifact, std::string(k)}];
  });
  if (s.ok()) {
    s = db.ForEach(store::kStagesCf, [&](std::string_view k, std::string_view) {
      ++values[{EntryKind::kStage, std::string(k)}];
    });
  }
  if (s.ok())
    s = db.ForEach(store::kAliasesCf, [&](std::string_view, std::string_view) { ++aliases; });
  if (s.ok()) {
    s = db.ForEach(store::kMetaCf, [&](std::string_view k, std::string_view v) {
      if (k.starts_with(store::kEntryPrefix) && k.size() > store::kEntryPrefix.size()) {
        const EntryId id{static_cast<EntryKind>(k[store::kEntryPrefix.size()]),
                         std::string(k.substr(store::kEntryPrefix.size() + 1))};
        std::optional<store::EntryInfo> info = store::DecodeEntryInfo(v);
        if (!info) {
          violations.push_back("unreadable entry info of " + Name(id));
        } else {
          infos[id] = *info;
        }
      } else if (k.starts_with("counter/")) {
        std::uint64_t n = 0;
        if (!store::DecodeFixed64(v, &n)) violations.push_back("unreadable " + std::string(k));
        counters[std::string(k)] = n;
      }
    });
  }
  if (s.ok()) {
    s = db.ForEach(store::kAccessCf, [&](std::string_view k, std::string_view) {
      std::optional<store::ParsedAccessKey> parsed = store::ParseAccessKey(k);
      if (!parsed) {
        violations.push_back("unparsable access-index key " + ToHex(k));
      } else {
        index[{parsed->kind, std::string(parsed->key)}].push_back(parsed->tick);
      }
    });
  }
  if (!s.ok()) return {"reading the store: " + s.ToString()};

  std::uint64_t artifacts = 0, stages = 0, artifact_bytes = 0, stage_bytes = 0;
  for (const auto& [id, info] : infos) {
    const bool stage = id.first == EntryKind::kStage;
    (stage ? stages : artifacts) += 1;
    (stage ? stage_bytes : artifact_bytes) += info.bytes;
    if (!values.count(id)) violations.push_back(Name(id) + " has an info entry but no value");
    auto ticks = index.find(id);
    if (ticks == index.end() || ticks->second.size() != 1 ||
        ticks->second.front() != info.last_access) {
      violations.push_back(Name(id) + " does not have exactly one access-index entry at its tick");
    }
  }
  for (const auto& [id, count] : values) {
    if (!infos.count(id)) violations.push_back(Name(id) + " has a value but no info entry");
  }
  for (const auto& [id, ticks] : index) {
    if (!infos.count(id)) violations.push_back(Name(id) + " is indexed but has no info entry");
  }
  const std::pair<std::string, std::uint64_t> expected[] = {
      {std::string(store::kArtifactCountKey), artifacts},
      {std::string(store::kStageCountKey), stages},
      {std::string(store::kAliasCountKey), aliases},
      {std::string(store::kPayloadBytesKey), artifact_bytes},
      {std::string(store::kStageBytesKey), stage_bytes}};
  for (const auto& [key, actual] : expected) {
    if (counters[key] != actual) {
      violations.push_back(key + " is " + std::to_string(counters[key]) + " but the store holds " +
                           std::to_string(actual));
    }
  }
  return violations;
}

}  // namespace qdcache::crash
