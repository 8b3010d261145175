// The RocksDB database under a store directory, opened with the store's
// column families (rocksdb_layout.h) or refused with the reason: the part of
// opening a store that is about RocksDB files, not about the store's
// records. Internal to the store.
#pragma once

#include <rocksdb/db.h>

#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "store/rocksdb_layout.h"

namespace qdcache::store {

// An open database and its column family handles, closed (and the close
// logged if it fails) on destruction. Not thread-safe itself; the DB it
// holds is RocksDB's, thread-safe as RocksDB documents.
class StoreDatabase {
 public:
  StoreDatabase(std::string path, rocksdb::DB* db,
                std::vector<rocksdb::ColumnFamilyHandle*> handles);
  ~StoreDatabase();
  StoreDatabase(const StoreDatabase&) = delete;
  StoreDatabase& operator=(const StoreDatabase&) = delete;

  [[nodiscard]] rocksdb::DB* db() const { return db_; }
  [[nodiscard]] rocksdb::ColumnFamilyHandle* cf(ColumnFamilyIndex index) const {
    return handles_[index];
  }

 private:
  const std::string path_;
  rocksdb::DB* const db_;                                    // owned
  const std::vector<rocksdb::ColumnFamilyHandle*> handles_;  // owned, ColumnFamilyIndex order
};

struct DatabaseOpening {
  std::unique_ptr<StoreDatabase> database;  // set on success
  // Set when what is at the path is not a usable store database (another
  // program's database, damaged files): the caller moves it aside.
  std::string incompatible;
  // Otherwise, why it could not be opened (I/O, permissions, a lock held by
  // another process); the directory is left alone.
  Status error;
};

// Opens (creating if missing) the database at `path`. A database that
// exists must have exactly the store's column families, and every live
// table and blob file the size its MANIFEST recorded.
[[nodiscard]] DatabaseOpening OpenStoreDatabase(const std::string& path);

}  // namespace qdcache::store
