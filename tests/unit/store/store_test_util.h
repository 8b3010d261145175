// Helpers shared by the store tests: a temporary directory per test and direct
// access to a (closed) store's RocksDB database for corruption injection.
#pragma once

#include <rocksdb/db.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/digest.h"
#include "store/artifact_store.h"
#include "store/rocksdb_layout.h"
#include "tests/support/temp_dir.h"

namespace qdcache::store::testing {

// The shared scratch directory (tests/support/temp_dir.h), with the store one
// level down so that "<store>.incompatible-*" and other moved-aside siblings
// land inside it and are removed with it.
class TempDir : public qdcache::testing::TempDir {
 public:
  std::filesystem::path root() const { return path(); }
  std::string store_path() const { return *this / "store"; }
};

inline StoreOptions OptionsFor(const TempDir& dir) {
  StoreOptions options;
  options.path = dir.store_path();
  return options;
}

inline std::unique_ptr<ArtifactStore> OpenOrFail(const StoreOptions& options) {
  auto store = ArtifactStore::Open(options);
  INFO(store.status().ToString());
  REQUIRE(store.ok());
  return std::move(store).value();
}

inline ArtifactKey KeyFor(const std::string& seed) { return DigestBytes(Sha256(seed)); }

inline ArtifactRecord MakeRecord(const std::string& seed, std::size_t payload_size = 64) {
  ArtifactRecord r;
  r.key = KeyFor(seed);
  r.kind = 1;
  r.target = "cuda:sm_90";
  r.toolchain = "toolchain-" + seed;
  r.payload.reserve(payload_size);
  for (std::size_t i = 0; r.payload.size() < payload_size; ++i) {
    r.payload.push_back(static_cast<char>((seed.size() * 131 + i * 7) & 0xff));
  }
  r.ptx = ".version 8.0 // " + seed;
  r.metadata = "metadata-of-" + seed;
  r.compile_log = "log of " + seed;
  r.compile_micros = 1234;
  return r;
}

// Bytes a record counts towards the cap (payload + ptx).
inline std::uint64_t Bytes(const ArtifactRecord& r) { return r.payload.size() + r.ptx.size(); }

// A wall clock that moves only when told to. Shared so that a store holding
// its function may outlive the test's handle.
class FakeClock {
 public:
  using TimePoint = std::chrono::system_clock::time_point;
  static constexpr std::int64_t kStartMicros = 1'700'000'000'000'000;  // Nov 2023

  static std::shared_ptr<FakeClock> Make() { return std::make_shared<FakeClock>(); }
  TimePoint Now() const { return TimePoint(std::chrono::microseconds(micros_.load())); }
  void Advance(std::chrono::microseconds d) { micros_ += d.count(); }
  std::uint64_t NowUnixMs() const { return static_cast<std::uint64_t>(micros_.load() / 1000); }

 private:
  std::atomic<std::int64_t> micros_{kStartMicros};
};

inline StoreOptions OptionsWithClock(const TempDir& dir, const std::shared_ptr<FakeClock>& clock) {
  StoreOptions options = OptionsFor(dir);
  options.clock = [clock] { return clock->Now(); };
  return options;
}

// Direct RocksDB access to a store directory that no ArtifactStore holds open.
class RawDb {
 public:
  explicit RawDb(const std::string& path) {
    rocksdb::DBOptions options = MakeDbOptions();
    options.create_if_missing = false;
    rocksdb::DB* db = nullptr;
    rocksdb::Status s =
        rocksdb::DB::Open(options, path, MakeColumnFamilyDescriptors(), &handles_, &db);
    INFO(s.ToString());
    REQUIRE(s.ok());
    db_.reset(db);
  }
  ~RawDb() {
    for (auto* h : handles_) (void)db_->DestroyColumnFamilyHandle(h);
    (void)db_->Close();
  }
  rocksdb::DB* db() { return db_.get(); }
  rocksdb::ColumnFamilyHandle* artifacts() { return handles_[kArtifactsCf]; }
  rocksdb::ColumnFamilyHandle* stages() { return handles_[kStagesCf]; }
  rocksdb::ColumnFamilyHandle* aliases() { return handles_[kAliasesCf]; }
  rocksdb::ColumnFamilyHandle* access() { return handles_[kAccessCf]; }
  rocksdb::ColumnFamilyHandle* meta() { return handles_[kMetaCf]; }

  std::optional<std::string> Get(rocksdb::ColumnFamilyHandle* cf, const std::string& key) {
    std::string value;
    rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), cf, key, &value);
    if (s.IsNotFound()) return std::nullopt;
    REQUIRE(s.ok());
    return value;
  }
  void Put(rocksdb::ColumnFamilyHandle* cf, const std::string& key, const std::string& value) {
    REQUIRE(db_->Put(rocksdb::WriteOptions(), cf, key, value).ok());
  }
  std::vector<std::string> Keys(rocksdb::ColumnFamilyHandle* cf) {
    std::vector<std::string> keys;
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions(), cf));
    for (it->SeekToFirst(); it->Valid(); it->Next()) keys.push_back(it->key().ToString());
    REQUIRE(it->status().ok());
    return keys;
  }

 private:
  std::vector<rocksdb::ColumnFamilyHandle*> handles_;
  std::unique_ptr<rocksdb::DB> db_;
};

}  // namespace qdcache::store::testing
