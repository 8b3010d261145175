#include "store/rocksdb_counters.h"

#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "store/entry_index.h"
#include "store/record_codec.h"
#include "store/rocksdb_layout.h"
#include "store/rocksdb_status.h"

namespace qdcache::store {
namespace {

// Every counter with its meta key.
std::pair<std::string_view, std::uint64_t EntryCounters::*> const kCounterKeys[] = {
    {kArtifactCountKey, &EntryCounters::artifacts},    {kAliasCountKey, &EntryCounters::aliases},
    {kPayloadBytesKey, &EntryCounters::payload_bytes}, {kStageCountKey, &EntryCounters::stages},
    {kStageBytesKey, &EntryCounters::stage_bytes},
};

}  // namespace

Status PutCounters(rocksdb::WriteBatch* batch, rocksdb::ColumnFamilyHandle* meta,
                   const EntryCounters& counters) {
  for (const auto& [key, field] : kCounterKeys) {
    QDC_RETURN_IF_ERROR(FromRocks(batch->Put(meta, key, EncodeFixed64(counters.*field)), "batch"));
  }
  return Status::Ok();
}

Expected<std::optional<EntryCounters>> ReadCounters(rocksdb::DB& db,
                                                    rocksdb::ColumnFamilyHandle* meta) {
  EntryCounters counters;
  bool complete = true;
  for (const auto& [key, field] : kCounterKeys) {
    std::string value;
    rocksdb::Status s = db.Get(rocksdb::ReadOptions(), meta, key, &value);
    if (!s.ok() && !s.IsNotFound()) return FromRocks(s, "reading counters");
    if (!s.ok() || !DecodeFixed64(value, &(counters.*field))) complete = false;
  }
  if (!complete) return std::optional<EntryCounters>();
  return std::optional<EntryCounters>(counters);
}

Expected<EntryCounters> RecountCounters(rocksdb::DB& db, rocksdb::ColumnFamilyHandle* meta,
                                        rocksdb::ColumnFamilyHandle* aliases) {
  EntryCounters out;
  {
    std::unique_ptr<rocksdb::Iterator> it(db.NewIterator(rocksdb::ReadOptions(), meta));
    for (it->Seek(kEntryPrefix); it->Valid() && it->key().starts_with(kEntryPrefix); it->Next()) {
      const std::string_view key = it->key().ToStringView();
      const std::optional<EntryInfo> info = DecodeEntryInfo(it->value().ToStringView());
      const bool stage = key.size() > kEntryPrefix.size() &&
                         key[kEntryPrefix.size()] == static_cast<char>(EntryKind::kStage);
      out.Written(stage ? EntryKind::kStage : EntryKind::kArtifact, info ? info->bytes : 0,
                  nullptr);
    }
    QDC_RETURN_IF_ERROR(FromRocks(it->status(), "recounting entries"));
  }
  std::unique_ptr<rocksdb::Iterator> it(db.NewIterator(rocksdb::ReadOptions(), aliases));
  for (it->SeekToFirst(); it->Valid(); it->Next()) ++out.aliases;
  QDC_RETURN_IF_ERROR(FromRocks(it->status(), "recounting aliases"));
  return out;
}

}  // namespace qdcache::store
