#include "store/rocksdb_database.h"

#include <spdlog/spdlog.h>

#include <filesystem>
#include <set>

#include "store/artifact_store.h"
#include "store/rocksdb_status.h"

namespace qdcache::store {
namespace {

// Why a live table or blob file does not have the size the MANIFEST
// recorded, or "" when every one does.
//
// RocksDB checks table sizes when it opens a store, not blob file sizes: a
// blob file cut short (what a power cut can do to a file the disk had not
// written yet) opens fine and then fails every flush and compaction that
// reads it, which stops every write. Compare what is on disk with what the
// MANIFEST recorded.
std::string DamagedLiveFile(rocksdb::DB& db,
                            const std::vector<rocksdb::ColumnFamilyHandle*>& handles) {
  auto mismatch = [](const std::string& path, std::uint64_t recorded) -> std::string {
    std::error_code ec;
    const std::uintmax_t actual = std::filesystem::file_size(path, ec);
    if (ec) return "live file " + path + " cannot be read: " + ec.message();
    if (actual == recorded) return "";
    return "live file " + path + " is " + std::to_string(actual) + " bytes, the store recorded " +
           std::to_string(recorded) + " (damaged: cut short by a power cut or a disk error)";
  };
  for (rocksdb::ColumnFamilyHandle* cf : handles) {
    rocksdb::ColumnFamilyMetaData meta;
    db.GetColumnFamilyMetaData(cf, &meta);
    for (const rocksdb::BlobMetaData& blob : meta.blob_files) {
      std::string why =
          mismatch(blob.blob_file_path + "/" + blob.blob_file_name, blob.blob_file_size);
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

}  // namespace

StoreDatabase::StoreDatabase(std::string path, rocksdb::DB* db,
                             std::vector<rocksdb::ColumnFamilyHandle*> handles)
    : path_(std::move(path)), db_(db), handles_(std::move(handles)) {}

StoreDatabase::~StoreDatabase() {
  for (rocksdb::ColumnFamilyHandle* handle : handles_) {
    (void)db_->DestroyColumnFamilyHandle(handle);
  }
  rocksdb::Status s = db_->Close();
  if (!s.ok()) spdlog::warn("closing store '{}': {}", path_, s.ToString());
  delete db_;
}

DatabaseOpening OpenStoreDatabase(const std::string& path) {
  DatabaseOpening out;
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

  rocksdb::DB* db = nullptr;
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::Status s = rocksdb::DB::Open(db_options, path, descriptors, &handles, &db);
  if (!s.ok()) {
    // I/O errors (permissions, a lock held by another process) are not the
    // store's fault: report them and leave the directory alone.
    if (s.IsIOError() && s.ToString().find("lock file") != std::string::npos) {
      // Another process took the lock since CheckStoreNotInUse looked.
      out.error = CheckStoreNotInUse(path);
      if (out.error.ok()) {
        out.error = FailedPrecondition("store '" + path + "' is in use by another process");
      }
    } else if (s.IsIOError()) {
      out.error = FromRocks(s, "opening store '" + path + "'");
    } else {
      out.incompatible = "cannot open as a store: " + s.ToString();
    }
    return out;
  }
  auto database = std::make_unique<StoreDatabase>(path, db, handles);
  if (std::string damaged = DamagedLiveFile(*db, handles); !damaged.empty()) {
    out.incompatible = std::move(damaged);
    return out;  // the database is closed before the caller moves the directory
  }
  out.database = std::move(database);
  return out;
}

}  // namespace qdcache::store
