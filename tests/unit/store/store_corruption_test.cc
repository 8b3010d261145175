// Damage at rest to the RocksDB store's values, byte by byte: every kind of
// damaged record, stage value or alias is dropped from disk (value, entry
// info and index record), counted and reported as a miss. That a damaged
// entry is a counted miss at all is the conformance suite's
// (conformance/corruption.h); this is how the encodings make it so.
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

// Stores `record`, closes the store, lets `damage` rewrite the raw value, and
// checks that the reopened store drops the record on the next Get.
template <typename Damage>
void ExpectDroppedAfter(const ArtifactRecord& record, Damage damage) {
  TempDir dir;
  {
    auto store = OpenOrFail(OptionsFor(dir));
    REQUIRE(store->Put(record).ok());
    REQUIRE(store->Put(MakeRecord("bystander")).ok());
  }
  {
    RawDb raw(dir.store_path());
    auto value = raw.Get(raw.artifacts(), record.key);
    REQUIRE(value.has_value());
    damage(raw, *value);
  }
  auto store = OpenOrFail(OptionsFor(dir));
  REQUIRE(store->Stats().artifacts == 2);
  auto got = store->Get(record.key);
  REQUIRE(got.ok());
  CHECK_FALSE(got->has_value());
  StoreStats stats = store->Stats();
  CHECK(stats.corrupt_dropped == 1);
  CHECK(stats.artifacts == 1);
  const ArtifactRecord bystander = MakeRecord("bystander");
  CHECK(stats.payload_bytes == bystander.payload.size() + bystander.ptx.size());

  // Gone for good: a second read is a plain miss and is not counted again.
  got = store->Get(record.key);
  REQUIRE(got.ok());
  CHECK_FALSE(got->has_value());
  CHECK(store->Stats().corrupt_dropped == 1);
  CHECK(store->Get(bystander.key)->has_value());
  store.reset();
  RawDb raw(dir.store_path());
  CHECK_FALSE(raw.Get(raw.artifacts(), record.key).has_value());
  CHECK_FALSE(raw.Get(raw.meta(), EntryInfoKey(EntryKind::kArtifact, record.key)).has_value());
  CHECK(raw.Keys(raw.access()).size() == 1);  // the bystander's index entry only
}

std::optional<std::string> GetStageOrFail(ArtifactStore& store, const std::string& key) {
  auto got = store.GetStage(key);
  INFO(got.status().ToString());
  REQUIRE(got.ok());
  return *got;
}

std::size_t FindUnique(const std::string& haystack, const std::string& needle) {
  const std::size_t at = haystack.find(needle);
  REQUIRE(at != std::string::npos);
  REQUIRE(haystack.find(needle, at + 1) == std::string::npos);
  return at;
}

TEST_CASE("a flipped payload byte at rest is dropped, not served", "[store][corruption]") {
  const ArtifactRecord r = MakeRecord("payload-flip", 200);
  ExpectDroppedAfter(r, [&](RawDb& raw, std::string value) {
    value[FindUnique(value, r.payload) + 17] ^= 0x01;
    raw.Put(raw.artifacts(), r.key, value);
  });
}

TEST_CASE("a flipped payload byte in a large (blob) value is dropped", "[store][corruption]") {
  const ArtifactRecord r = MakeRecord("blob-flip", 64 << 10);
  ExpectDroppedAfter(r, [&](RawDb& raw, std::string value) {
    value[value.size() - 100] ^= 0x80;
    raw.Put(raw.artifacts(), r.key, value);
  });
}

TEST_CASE("a flipped metadata byte is dropped", "[store][corruption]") {
  const ArtifactRecord r = MakeRecord("metadata-flip");
  ExpectDroppedAfter(r, [&](RawDb& raw, std::string value) {
    value[FindUnique(value, r.metadata) + 3] ^= 0x20;
    raw.Put(raw.artifacts(), r.key, value);
  });
}

TEST_CASE("a flipped header byte is dropped", "[store][corruption]") {
  const ArtifactRecord r = MakeRecord("header-flip");
  for (std::size_t at : {std::size_t{0}, std::size_t{5}, std::size_t{20}}) {
    ExpectDroppedAfter(r, [&](RawDb& raw, std::string value) {
      value[at] ^= 0x04;
      raw.Put(raw.artifacts(), r.key, value);
    });
  }
}

TEST_CASE("a truncated value is dropped", "[store][corruption]") {
  const ArtifactRecord r = MakeRecord("truncated");
  for (std::size_t keep : {std::size_t{0}, std::size_t{10}, kRecordHeaderSize + 5}) {
    ExpectDroppedAfter(r, [&](RawDb& raw, const std::string& value) {
      raw.Put(raw.artifacts(), r.key, value.substr(0, keep));
    });
  }
}

TEST_CASE("a well-formed record whose payload does not match its digest is dropped",
          "[store][corruption]") {
  // The envelope digest is recomputed, so only the payload digest check can
  // catch this (a record encoded from bad bytes rather than damaged at rest).
  const ArtifactRecord r = MakeRecord("digest-mismatch");
  ExpectDroppedAfter(r, [&](RawDb& raw, const std::string& value) {
    ArtifactRecord decoded;
    REQUIRE(DecodeRecord(value, &decoded).ok());
    decoded.payload[0] ^= 0x01;
    raw.Put(raw.artifacts(), r.key, EncodeRecord(decoded));
  });
}

TEST_CASE("a valid record stored under another key is dropped", "[store][corruption]") {
  const ArtifactRecord r = MakeRecord("misplaced");
  ExpectDroppedAfter(r, [&](RawDb& raw, const std::string&) {
    ArtifactRecord other = MakeRecord("someone-else");
    other.payload_digest = DigestBytes(Sha256(other.payload));
    raw.Put(raw.artifacts(), r.key, EncodeRecord(other));
  });
}

TEST_CASE("a record from an unknown format version is dropped", "[store][corruption]") {
  const ArtifactRecord r = MakeRecord("future");
  ExpectDroppedAfter(r, [&](RawDb& raw, std::string value) {
    value[4] = static_cast<char>(kRecordFormatVersion + 1);
    raw.Put(raw.artifacts(), r.key, value);
  });
}

TEST_CASE("a valid alias value moved under another alias key is dropped",
          "[store][corruption][alias]") {
  TempDir dir;
  AliasKey alias;
  alias.tenant = "uid:3";
  alias.ns = "ns";
  alias.target = "cuda:sm_90";
  alias.fast_key = "fast";
  AliasKey other = alias;
  other.fast_key = "other";
  {
    auto store = OpenOrFail(OptionsFor(dir));
    REQUIRE(store->PutAlias(alias, KeyFor("a")).ok());
    REQUIRE(store->PutAlias(other, KeyFor("b")).ok());
  }
  {
    RawDb raw(dir.store_path());
    const std::string encoded = EncodeAliasKey(alias);
    // The value written for `other`, moved under `alias`: well-formed, but not
    // written for this alias key.
    auto moved = raw.Get(raw.aliases(), EncodeAliasKey(other));
    REQUIRE(moved.has_value());
    raw.Put(raw.aliases(), encoded, *moved);
  }
  auto store = OpenOrFail(OptionsFor(dir));
  auto got = store->GetAlias(alias);
  REQUIRE(got.ok());
  CHECK_FALSE(got->has_value());
  CHECK(store->Stats().corrupt_dropped == 1);
  CHECK(store->Stats().aliases == 1);
  CHECK(*store->GetAlias(other) == KeyFor("b"));
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
