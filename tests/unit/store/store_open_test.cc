// Opening a store: fresh directories, incompatible stores moved aside, and
// clear errors (never an abort) for paths that cannot hold a store.
#include <fstream>

#include "store/artifact_store.h"
#include "store/record_codec.h"
#include "tests/unit/store/store_test_util.h"

namespace qdcache::store {
namespace {

using testing::MakeRecord;
using testing::OpenOrFail;
using testing::OptionsFor;
using testing::RawDb;
using testing::TempDir;

std::vector<std::filesystem::path> MovedAside(const TempDir& dir) {
  std::vector<std::filesystem::path> out;
  for (const auto& entry : std::filesystem::directory_iterator(dir.root())) {
    if (entry.path().filename().string().rfind("store.incompatible-", 0) == 0) {
      out.push_back(entry.path());
    }
  }
  return out;
}

TEST_CASE("Open creates the directory and its parents", "[store][open]") {
  TempDir dir;
  StoreOptions options;
  options.path = (dir.root() / "a" / "b" / "store").string();
  auto store = OpenOrFail(options);
  CHECK(std::filesystem::is_directory(options.path));
  CHECK(store->Put(MakeRecord("x")).ok());
}

TEST_CASE("Open writes the schema version", "[store][open]") {
  TempDir dir;
  OpenOrFail(OptionsFor(dir)).reset();
  RawDb raw(dir.store_path());
  auto version = raw.Get(raw.meta(), std::string(kSchemaVersionKey));
  REQUIRE(version.has_value());
  std::uint32_t v = 0;
  REQUIRE(DecodeFixed32(*version, &v));
  CHECK(v == ArtifactStore::kSchemaVersion);
}

TEST_CASE("a store with another schema version is moved aside", "[store][open]") {
  TempDir dir;
  const ArtifactRecord r = MakeRecord("old");
  {
    auto store = OpenOrFail(OptionsFor(dir));
    REQUIRE(store->Put(r).ok());
  }
  {
    RawDb raw(dir.store_path());
    raw.Put(raw.meta(), std::string(kSchemaVersionKey),
            EncodeFixed32(ArtifactStore::kSchemaVersion + 1));
  }
  auto store = OpenOrFail(OptionsFor(dir));
  CHECK_FALSE(store->Get(r.key)->has_value());
  CHECK(store->Stats().artifacts == 0);
  const auto moved = MovedAside(dir);
  REQUIRE(moved.size() == 1);
  CHECK(std::filesystem::exists(moved[0] / "CURRENT"));  // kept, not deleted
  store.reset();

  // The fresh store is compatible: opening again moves nothing.
  OpenOrFail(OptionsFor(dir)).reset();
  CHECK(MovedAside(dir).size() == 1);
}

TEST_CASE("a store path that is a symbolic link stays one when its store is moved aside",
          "[store][open]") {
  TempDir dir;
  const std::filesystem::path real = dir.root() / "real-store";
  {
    StoreOptions options;
    options.path = real.string();
    OpenOrFail(options).reset();
    RawDb raw(real.string());
    raw.Put(raw.meta(), std::string(kSchemaVersionKey), EncodeFixed32(ArtifactStore::kSchemaVersion + 1));
  }
  std::filesystem::create_directory_symlink(real, dir.store_path());
  auto store = OpenOrFail(OptionsFor(dir));
  CHECK(std::filesystem::is_symlink(dir.store_path()));
  CHECK(std::filesystem::exists(real / "CURRENT"));  // the fresh store, where the link points
  CHECK(store->Put(MakeRecord("fresh")).ok());
  std::vector<std::string> aside;
  for (const auto& entry : std::filesystem::directory_iterator(dir.root())) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("real-store.incompatible-", 0) == 0) aside.push_back(name);
  }
  CHECK(aside.size() == 1);
}

TEST_CASE("a schema 2 store (aliases keyed by numeric uid) is moved aside, not half-read",
          "[store][open]") {
  TempDir dir;
  const ArtifactRecord r = MakeRecord("from-schema-2");
  {
    auto store = OpenOrFail(OptionsFor(dir));
    REQUIRE(store->Put(r).ok());
  }
  {
    RawDb raw(dir.store_path());
    raw.Put(raw.meta(), std::string(kSchemaVersionKey), EncodeFixed32(2));
    // A schema 2 alias key: the uid (1000) as a big-endian u32, then each
    // field as a big-endian u32 length and its bytes.
    std::string old_alias("\0\0\x03\xe8", 4);
    for (std::string_view field : {"ns", "cpu:x86-64", "f"}) {
      old_alias.append(3, '\0');
      old_alias.push_back(static_cast<char>(field.size()));
      old_alias.append(field);
    }
    raw.Put(raw.aliases(), old_alias, "QDA");
  }
  auto store = OpenOrFail(OptionsFor(dir));
  CHECK(store->Stats().artifacts == 0);
  CHECK(store->Stats().aliases == 0);
  CHECK(MovedAside(dir).size() == 1);
}

TEST_CASE("a RocksDB database with foreign column families is moved aside", "[store][open]") {
  TempDir dir;
  {
    rocksdb::Options options;
    options.create_if_missing = true;
    rocksdb::DB* db = nullptr;
    REQUIRE(rocksdb::DB::Open(options, dir.store_path(), &db).ok());
    REQUIRE(db->Put(rocksdb::WriteOptions(), "k", "v").ok());
    delete db;
  }
  auto store = OpenOrFail(OptionsFor(dir));
  CHECK(MovedAside(dir).size() == 1);
  CHECK(store->Put(MakeRecord("fresh")).ok());
}

TEST_CASE("a database with our column families but data and no schema is moved aside",
          "[store][open]") {
  TempDir dir;
  OpenOrFail(OptionsFor(dir)).reset();
  {
    RawDb raw(dir.store_path());
    REQUIRE(
        raw.db()->Delete(rocksdb::WriteOptions(), raw.meta(), std::string(kSchemaVersionKey)).ok());
    raw.Put(raw.artifacts(), "k", "v");
  }
  OpenOrFail(OptionsFor(dir)).reset();
  CHECK(MovedAside(dir).size() == 1);
}

TEST_CASE("a directory holding unrelated files is refused and left alone", "[store][open]") {
  TempDir dir;
  std::filesystem::create_directories(dir.store_path());
  const auto precious = std::filesystem::path(dir.store_path()) / "thesis.tex";
  std::ofstream(precious) << "do not move me";
  auto store = ArtifactStore::Open(OptionsFor(dir));
  REQUIRE_FALSE(store.ok());
  CHECK(store.status().code() == Code::kFailedPrecondition);
  CHECK(std::filesystem::exists(precious));
  CHECK(MovedAside(dir).empty());
}

TEST_CASE("a path that cannot be a directory gives a clear error", "[store][open]") {
  TempDir dir;
  const auto file = dir.root() / "plain-file";
  std::ofstream(file) << "x";

  SECTION("path below a regular file") {
    StoreOptions options;
    options.path = (file / "store").string();
    auto store = ArtifactStore::Open(options);
    REQUIRE_FALSE(store.ok());
    CHECK(store.status().message().find("store") != std::string::npos);
  }
  SECTION("path is a regular file") {
    StoreOptions options;
    options.path = file.string();
    auto store = ArtifactStore::Open(options);
    REQUIRE_FALSE(store.ok());
    CHECK(store.status().code() == Code::kFailedPrecondition);
  }
  SECTION("empty path") {
    auto store = ArtifactStore::Open(StoreOptions{});
    REQUIRE_FALSE(store.ok());
    CHECK(store.status().code() == Code::kInvalidArgument);
  }
}

TEST_CASE("a store already open elsewhere is an error, not moved aside", "[store][open]") {
  TempDir dir;
  auto first = OpenOrFail(OptionsFor(dir));
  REQUIRE(first->Put(MakeRecord("kept")).ok());
  auto second = ArtifactStore::Open(OptionsFor(dir));
  REQUIRE_FALSE(second.ok());
  CHECK(second.status().code() == Code::kUnavailable);
  CHECK(MovedAside(dir).empty());
  CHECK(first->Get(MakeRecord("kept").key)->has_value());
}

TEST_CASE("missing counters are recomputed on open", "[store][open][stats]") {
  TempDir dir;
  const ArtifactRecord a = MakeRecord("a", 100);
  const ArtifactRecord b = MakeRecord("b", 9000);
  StoreStats before;
  {
    auto store = OpenOrFail(OptionsFor(dir));
    AliasKey alias;
    alias.fast_key = "f";
    REQUIRE(store->Put(a, alias).ok());
    REQUIRE(store->Put(b).ok());
    before = store->Stats();
  }
  {
    RawDb raw(dir.store_path());
    REQUIRE(
        raw.db()->Delete(rocksdb::WriteOptions(), raw.meta(), std::string(kPayloadBytesKey)).ok());
  }
  auto store = OpenOrFail(OptionsFor(dir));
  const StoreStats after = store->Stats();
  CHECK(after.artifacts == before.artifacts);
  CHECK(after.aliases == before.aliases);
  CHECK(after.payload_bytes == before.payload_bytes);
}

}  // namespace
}  // namespace qdcache::store

namespace qdcache::store {
namespace {

TEST_CASE("a blob file cut short is found when the store opens, and the store is moved aside saying so",
          "[store][open]") {
  testing::TempDir dir;
  const ArtifactRecord big = testing::MakeRecord("big", 64 << 10);  // well above kMinBlobSize
  {
    auto store = testing::OpenOrFail(testing::OptionsFor(dir));
    REQUIRE(store->Put(big).ok());
  }
  {
    testing::RawDb raw(dir.store_path());  // flushes the memtable into a table and a blob file
    REQUIRE(raw.db()->Flush(rocksdb::FlushOptions(), raw.artifacts()).ok());
  }
  std::filesystem::path blob;
  for (const auto& e : std::filesystem::directory_iterator(dir.store_path())) {
    if (e.path().extension() == ".blob") blob = e.path();
  }
  REQUIRE_FALSE(blob.empty());
  std::filesystem::resize_file(blob, std::filesystem::file_size(blob) - 100);  // the tail a power cut took

  auto store = testing::OpenOrFail(testing::OptionsFor(dir));
  CHECK_FALSE(store->Get(big.key)->has_value());  // a fresh store, not a half-readable one
  CHECK(store->Put(testing::MakeRecord("after")).ok());
  REQUIRE(MovedAside(dir).size() == 1);
  CHECK(std::filesystem::exists(MovedAside(dir)[0] / blob.filename()));  // kept for inspection
}

}  // namespace
}  // namespace qdcache::store
