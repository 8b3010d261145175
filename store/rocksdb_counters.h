// The store's counters (entry_counters.h) as the RocksDB store persists them
// in its meta column family (rocksdb_layout.h): written in the same
// WriteBatch as the change they describe, read back on open, and recounted
// from the entry infos and aliases when one is missing or unreadable.
// Internal to the store.
#pragma once

#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>

#include <optional>

#include "common/expected.h"
#include "store/entry_counters.h"

namespace qdcache::store {

// Adds the writes of every counter in `counters` to `batch`.
[[nodiscard]] Status PutCounters(rocksdb::WriteBatch* batch, rocksdb::ColumnFamilyHandle* meta,
                                 const EntryCounters& counters);

// The counters stored in `meta`; nullopt when one is missing or unreadable.
[[nodiscard]] Expected<std::optional<EntryCounters>> ReadCounters(
    rocksdb::DB& db, rocksdb::ColumnFamilyHandle* meta);

// The counters as the entry infos in `meta` and the aliases in `aliases`
// say, for a store whose stored counters are lost. A full scan.
[[nodiscard]] Expected<EntryCounters> RecountCounters(rocksdb::DB& db,
                                                      rocksdb::ColumnFamilyHandle* meta,
                                                      rocksdb::ColumnFamilyHandle* aliases);

}  // namespace qdcache::store
