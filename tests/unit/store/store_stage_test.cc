// Stage outputs: intermediate compile results (e.g. PTX) under daemon-computed
// keys, verified on read and accounted like artifacts.
#include "store/artifact_store.h"
#include "store/entry_index.h"
#include "store/record_codec.h"
#include "tests/unit/store/store_test_util.h"

namespace qdcache::store {
namespace {

using testing::KeyFor;
using testing::MakeRecord;
using testing::OpenOrFail;
using testing::OptionsFor;
using testing::RawDb;
using testing::TempDir;

std::optional<std::string> GetStageOrFail(ArtifactStore& store, const std::string& key) {
  auto got = store.GetStage(key);
  INFO(got.status().ToString());
  REQUIRE(got.ok());
  return *got;
}

TEST_CASE("a stage output reads back byte for byte", "[store][stage]") {
  TempDir dir;
  auto store = OpenOrFail(OptionsFor(dir));
  const std::string small = std::string(".version 8.0\0binary\xff", 20);
  const std::string large(200 << 10, 'x');  // goes to a blob file
  REQUIRE(store->PutStage(KeyFor("small"), small).ok());
  REQUIRE(store->PutStage(KeyFor("large"), large).ok());
  CHECK(GetStageOrFail(*store, KeyFor("small")) == small);
  CHECK(GetStageOrFail(*store, KeyFor("large")) == large);
  CHECK_FALSE(GetStageOrFail(*store, KeyFor("absent")).has_value());
}

TEST_CASE("stages and artifacts are separate namespaces", "[store][stage]") {
  TempDir dir;
  auto store = OpenOrFail(OptionsFor(dir));
  const ArtifactRecord r = MakeRecord("shared-key");
  REQUIRE(store->Put(r).ok());
  CHECK_FALSE(GetStageOrFail(*store, r.key).has_value());
  REQUIRE(store->PutStage(r.key, "ptx").ok());
  CHECK(GetStageOrFail(*store, r.key) == "ptx");
  CHECK((*store->Get(r.key))->payload == r.payload);
}

TEST_CASE("stage outputs are counted exactly, overwrite included", "[store][stage][stats]") {
  TempDir dir;
  auto store = OpenOrFail(OptionsFor(dir));
  REQUIRE(store->PutStage(KeyFor("a"), std::string(100, 'a')).ok());
  REQUIRE(store->PutStage(KeyFor("b"), std::string(300, 'b')).ok());
  REQUIRE(store->PutStage(KeyFor("a"), std::string(40, 'A')).ok());
  const ArtifactRecord r = MakeRecord("artifact", 1000);
  REQUIRE(store->Put(r).ok());
  StoreStats s = store->Stats();
  CHECK(s.stage_entries == 2);
  CHECK(s.stage_bytes == 340);
  CHECK(s.artifacts == 1);
  CHECK(s.total_bytes == 340 + testing::Bytes(r));
  store.reset();

  store = OpenOrFail(OptionsFor(dir));
  s = store->Stats();
  CHECK(s.stage_entries == 2);
  CHECK(s.stage_bytes == 340);
  CHECK(GetStageOrFail(*store, KeyFor("a")) == std::string(40, 'A'));
}

TEST_CASE("PutStage rejects an empty key", "[store][stage]") {
  TempDir dir;
  auto store = OpenOrFail(OptionsFor(dir));
  CHECK(store->PutStage("", "value").code() == Code::kInvalidArgument);
  CHECK(store->Stats().stage_entries == 0);
}

// Stores two stage outputs, lets `damage` rewrite the raw value of the first,
// and checks that the reopened store drops it on read and keeps the other.
template <typename Damage>
void ExpectStageDroppedAfter(Damage damage) {
  TempDir dir;
  const std::string key = KeyFor("victim");
  {
    auto store = OpenOrFail(OptionsFor(dir));
    REQUIRE(store->PutStage(key, std::string(5000, 'v')).ok());
    REQUIRE(store->PutStage(KeyFor("bystander"), "kept").ok());
  }
  {
    RawDb raw(dir.store_path());
    auto value = raw.Get(raw.stages(), key);
    REQUIRE(value.has_value());
    damage(raw, key, *value);
  }
  auto store = OpenOrFail(OptionsFor(dir));
  CHECK_FALSE(GetStageOrFail(*store, key).has_value());
  StoreStats s = store->Stats();
  CHECK(s.corrupt_dropped == 1);
  CHECK(s.stage_entries == 1);
  CHECK(s.stage_bytes == 4);
  CHECK_FALSE(GetStageOrFail(*store, key).has_value());  // a plain miss now
  CHECK(store->Stats().corrupt_dropped == 1);
  CHECK(GetStageOrFail(*store, KeyFor("bystander")) == "kept");
  store.reset();
  RawDb raw(dir.store_path());
  CHECK_FALSE(raw.Get(raw.stages(), key).has_value());
  CHECK_FALSE(raw.Get(raw.meta(), EntryInfoKey(EntryKind::kStage, key)).has_value());
  CHECK(raw.Keys(raw.access()).size() == 1);
}

TEST_CASE("a flipped stage byte is dropped, not served", "[store][stage][corruption]") {
  ExpectStageDroppedAfter([](RawDb& raw, const std::string& key, std::string value) {
    value[value.size() - 7] ^= 0x10;
    raw.Put(raw.stages(), key, value);
  });
}

TEST_CASE("a truncated stage value is dropped", "[store][stage][corruption]") {
  ExpectStageDroppedAfter([](RawDb& raw, const std::string& key, const std::string& value) {
    raw.Put(raw.stages(), key, value.substr(0, kStageHeaderSize - 1));
  });
}

TEST_CASE("a valid stage value stored under another key is dropped", "[store][stage][corruption]") {
  ExpectStageDroppedAfter([](RawDb& raw, const std::string& key, const std::string&) {
    raw.Put(raw.stages(), key, EncodeStageValue(KeyFor("someone-else"), std::string(5000, 'v')));
  });
}

}  // namespace
}  // namespace qdcache::store
