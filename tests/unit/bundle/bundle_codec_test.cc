// The bundle file codec (bundle/bundle_format.h): round trips, damage that is
// skipped and counted, damage that ends the read, and refusals.
#include <zstd.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "bundle/bundle_bytes.h"
#include "bundle/bundle_format.h"
#include "bundle/bundle_reader.h"
#include "bundle/bundle_writer.h"

using namespace qdcache;
using namespace qdcache::bundle;

namespace {

v1::BundleEntry Artifact(int i, std::size_t payload_size = 100) {
  v1::BundleEntry e;
  v1::BundleArtifact* a = e.mutable_artifact();
  a->set_artifact_key(std::string(32, static_cast<char>('a' + i % 26)));
  a->set_kind(v1::ARTIFACT_KIND_SHARED_OBJECT);
  a->set_target("cpu:x86-64");
  a->set_toolchain("toolchain");
  std::string payload;
  for (std::size_t k = 0; k < payload_size; ++k)
    payload.push_back(static_cast<char>((i * 31 + k * 7) & 0xff));
  a->set_payload(payload);
  a->set_created_unix_ms(1000 + i);
  return e;
}

v1::BundleEntry Alias(int i) {
  v1::BundleEntry e;
  v1::BundleAlias* a = e.mutable_alias();
  a->set_tenant("uid:1000");
  a->set_namespace_("ns");
  a->set_target("cpu:x86-64");
  a->set_fast_key("fast-" + std::to_string(i));
  a->set_artifact_key(std::string(32, static_cast<char>('a' + i % 26)));
  return e;
}

std::string Write(const std::vector<v1::BundleEntry>& entries,
                  std::size_t block_bytes = kTargetBlockBytes) {
  std::string out;
  WriterOptions options;
  options.block_bytes = block_bytes;
  auto writer = BundleWriter::Create(StringSink(&out), options);
  REQUIRE(writer.ok());
  for (const v1::BundleEntry& e : entries) REQUIRE((*writer)->Add(e).ok());
  auto totals = (*writer)->Finish();
  REQUIRE(totals.ok());
  CHECK(totals->stored_bytes == out.size());
  return out;
}

struct ReadAll {
  std::vector<v1::BundleEntry> entries;
  Status status;
  ReadCounts counts;
  std::optional<Trailer> trailer;
};

ReadAll Read(const std::string& bytes) {
  ReadAll r;
  auto reader = BundleReader::Open(StringSource(bytes));
  REQUIRE(reader.ok());
  for (;;) {
    auto next = (*reader)->Next();
    if (!next.ok()) {
      r.status = next.status();
      break;
    }
    if (!next->has_value()) break;
    r.entries.push_back(std::move(**next));
  }
  r.counts = (*reader)->counts();
  r.trailer = (*reader)->trailer();
  return r;
}

std::string Frame(const std::string& body, bool good_check = true) {
  std::string f;
  PutU32(&f, static_cast<std::uint32_t>(body.size()));
  f.append(good_check ? ShortCheck(body, 8) : std::string(8, 'x'));
  f.append(body);
  return f;
}

std::string BlockHeader(char kind, std::uint32_t stored, std::uint32_t raw, std::uint32_t count) {
  std::string h(1, kind);
  h.append(3, '\0');
  PutU32(&h, stored);
  PutU32(&h, raw);
  PutU32(&h, count);
  h.append(ShortCheck(h, 4));
  return h;
}

// A hand-made entries block over `frames` (which may be damaged on purpose).
std::string Block(const std::string& frames, std::uint32_t count) {
  std::string compressed(ZSTD_compressBound(frames.size()), '\0');
  const std::size_t n =
      ZSTD_compress(compressed.data(), compressed.size(), frames.data(), frames.size(), 3);
  REQUIRE_FALSE(ZSTD_isError(n));
  compressed.resize(n);
  return BlockHeader(kEntriesBlock, static_cast<std::uint32_t>(n),
                     static_cast<std::uint32_t>(frames.size()), count) +
         compressed;
}

std::string FileHeader(std::uint32_t version = kFormatVersion) {
  std::string h(kMagic);
  PutU32(&h, version);
  PutU32(&h, 0);
  return h;
}

std::string TrailerBlock(std::uint64_t artifacts, std::uint64_t aliases) {
  std::string t;
  PutU64(&t, artifacts);
  PutU64(&t, aliases);
  PutU64(&t, 0);
  t.append(ShortCheck(t, 8));
  return BlockHeader(kTrailerBlock, kTrailerSize, kTrailerSize, 0) + t;
}

std::string Serialized(const v1::BundleEntry& e) { return e.SerializeAsString(); }

}  // namespace

TEST_CASE("a bundle round-trips artifacts and aliases, in order, with its trailer", "[bundle]") {
  std::vector<v1::BundleEntry> entries;
  for (int i = 0; i < 50; ++i) entries.push_back(Artifact(i, 5000));
  for (int i = 0; i < 50; ++i) entries.push_back(Alias(i));
  const std::string bytes = Write(entries, /*block_bytes=*/16 * 1024);  // many blocks
  ReadAll r = Read(bytes);
  REQUIRE(r.status.ok());
  REQUIRE(r.entries.size() == entries.size());
  for (std::size_t i = 0; i < entries.size(); ++i)
    CHECK(Serialized(r.entries[i]) == Serialized(entries[i]));
  CHECK(r.counts.artifacts == 50);
  CHECK(r.counts.aliases == 50);
  CHECK(r.counts.skipped == 0);
  CHECK(r.counts.stored_bytes == bytes.size());
  REQUIRE(r.trailer);
  CHECK(r.trailer->artifacts == 50);
  CHECK(r.trailer->aliases == 50);
  CHECK(r.trailer->raw_bytes == r.counts.raw_bytes);
}

TEST_CASE("an empty bundle holds only its header and trailer", "[bundle]") {
  ReadAll r = Read(Write({}));
  CHECK(r.status.ok());
  CHECK(r.entries.empty());
  REQUIRE(r.trailer);
  CHECK(r.trailer->artifacts == 0);
}

TEST_CASE("an entry larger than a block gets a block of its own", "[bundle]") {
  ReadAll r = Read(Write({Alias(1), Artifact(2, 300 * 1024), Alias(3)}, /*block_bytes=*/4096));
  REQUIRE(r.status.ok());
  REQUIRE(r.entries.size() == 3);
  CHECK(r.entries[1].artifact().payload().size() == 300 * 1024);
}

TEST_CASE("a byte flipped in a compressed block skips that block's entries and keeps the rest",
          "[bundle]") {
  std::vector<v1::BundleEntry> entries;
  for (int i = 0; i < 6; ++i) entries.push_back(Artifact(i, 2000));
  std::string bytes = Write(entries, /*block_bytes=*/1);  // one entry per block
  // The second block starts after the file header and the first block.
  const std::uint32_t first_stored = GetU32(std::string_view(bytes).substr(kFileHeaderSize + 4));
  const std::size_t second_header = kFileHeaderSize + kBlockHeaderSize + first_stored;
  const std::uint32_t second_stored = GetU32(std::string_view(bytes).substr(second_header + 4));
  const std::size_t flip = second_header + kBlockHeaderSize + second_stored / 2;
  bytes[flip] = static_cast<char>(bytes[flip] ^ 0x5a);
  ReadAll r = Read(bytes);
  CHECK(r.status.ok());
  CHECK(r.entries.size() == 5);
  CHECK(r.counts.skipped == 1);
  CHECK(r.counts.artifacts == 5);
  REQUIRE(r.trailer);
  CHECK(r.trailer->artifacts == 6);
}

TEST_CASE(
    "a frame that fails its checksum is skipped and counted, and its block's other frames are read",
    "[bundle]") {
  const std::string frames = Frame(Serialized(Artifact(1))) +
                             Frame(Serialized(Artifact(2)), /*good_check=*/false) +
                             Frame(Serialized(Alias(1)));
  ReadAll r = Read(FileHeader() + Block(frames, 3) + TrailerBlock(2, 1));
  CHECK(r.status.ok());
  REQUIRE(r.entries.size() == 2);
  CHECK(r.entries[0].artifact().created_unix_ms() == 1001);
  CHECK(r.entries[1].has_alias());
  CHECK(r.counts.skipped == 1);
}

TEST_CASE("entries that do not decode or are of an unknown kind are skipped and counted",
          "[bundle]") {
  const std::string frames =
      Frame("\xff\xff\xff garbage") + Frame("") + Frame(Serialized(Alias(4)));
  ReadAll r = Read(FileHeader() + Block(frames, 3) + TrailerBlock(0, 1));
  CHECK(r.status.ok());
  REQUIRE(r.entries.size() == 1);
  CHECK(r.counts.skipped == 2);
}

TEST_CASE("a frame length past its block skips the rest of the block without reading past it",
          "[bundle]") {
  std::string bad = Frame(Serialized(Alias(2)));
  bad[0] = static_cast<char>(0xf0);  // length now far beyond the block
  bad[3] = static_cast<char>(0x7f);
  const std::string frames = Frame(Serialized(Alias(1))) + bad + Frame(Serialized(Alias(3)));
  ReadAll r = Read(FileHeader() + Block(frames, 3) + Block(Frame(Serialized(Alias(4))), 1) +
                   TrailerBlock(0, 4));
  CHECK(r.status.ok());
  REQUIRE(r.entries.size() == 2);
  CHECK(r.entries[1].alias().fast_key() == "fast-4");
  CHECK(r.counts.skipped == 2);
}

TEST_CASE("a truncated bundle yields the entries before the cut, then DATA_LOSS", "[bundle]") {
  std::vector<v1::BundleEntry> entries;
  for (int i = 0; i < 4; ++i) entries.push_back(Artifact(i, 1000));
  const std::string bytes = Write(entries, /*block_bytes=*/1);
  SECTION("cut before the trailer") {
    ReadAll r = Read(bytes.substr(0, bytes.size() - kBlockHeaderSize - kTrailerSize));
    CHECK(r.entries.size() == 4);
    CHECK(r.status.code() == Code::kDataLoss);
    CHECK_THAT(r.status.message(), Catch::Contains("truncated"));
    CHECK_FALSE(r.trailer);
  }
  SECTION("cut inside the last block") {
    ReadAll r = Read(bytes.substr(0, bytes.size() - kBlockHeaderSize - kTrailerSize - 10));
    CHECK(r.entries.size() == 3);
    CHECK(r.status.code() == Code::kDataLoss);
  }
  SECTION("cut inside a block header") {
    const std::uint32_t first_stored = GetU32(std::string_view(bytes).substr(kFileHeaderSize + 4));
    ReadAll r = Read(bytes.substr(0, kFileHeaderSize + kBlockHeaderSize + first_stored + 7));
    CHECK(r.entries.size() == 1);
    CHECK(r.status.code() == Code::kDataLoss);
  }
}

TEST_CASE("bytes that are not a bundle, or another format version, are refused at open",
          "[bundle]") {
  SECTION("wrong magic") {
    auto r = BundleReader::Open(StringSource("PK\x03\x04 this is a zip file, not a bundle"));
    CHECK(r.status().code() == Code::kInvalidArgument);
    CHECK_THAT(r.status().message(), Catch::Contains("not a qdcache bundle"));
  }
  SECTION("empty") {
    CHECK(BundleReader::Open(StringSource("")).status().code() == Code::kInvalidArgument);
  }
  SECTION("wrong version") {
    const std::string bytes = FileHeader(7) + TrailerBlock(0, 0);
    auto r = BundleReader::Open(StringSource(bytes));
    CHECK(r.status().code() == Code::kFailedPrecondition);
    CHECK_THAT(r.status().message(), Catch::Contains("version 7"));
  }
}

TEST_CASE("a block size beyond the limit is refused before anything is allocated", "[bundle]") {
  // A well-formed header (its check matches) that claims nearly 4 GiB.
  const std::string bytes =
      FileHeader() + BlockHeader(kEntriesBlock, 0xfffffff0u, 0xfffffff0u, 1) + "tiny";
  ReadAll r = Read(bytes);
  CHECK(r.entries.empty());
  CHECK(r.status.code() == Code::kDataLoss);
  CHECK_THAT(r.status.message(), Catch::Contains("more than the limit"));
}

TEST_CASE("a block size within the limit on a short file reads only what is there", "[bundle]") {
  const std::string bytes =
      FileHeader() + BlockHeader(kEntriesBlock, kMaxBlockBytes, kMaxBlockBytes, 1) + "tiny";
  ReadAll r = Read(bytes);
  CHECK(r.status.code() == Code::kDataLoss);
  CHECK_THAT(r.status.message(), Catch::Contains("truncated"));
}

TEST_CASE("a block header claiming a raw size its frame does not have skips the block unallocated",
          "[bundle]") {
  // A true frame of a few bytes behind a header that claims the limit: the
  // reader must believe the frame, not allocate what the header says.
  const std::string compressed = Block(Frame(Serialized(Alias(1))), 1).substr(kBlockHeaderSize);
  const std::string lying =
      BlockHeader(kEntriesBlock, static_cast<std::uint32_t>(compressed.size()), kMaxBlockBytes, 1);
  ReadAll r = Read(FileHeader() + lying + compressed + Block(Frame(Serialized(Alias(2))), 1) +
                   TrailerBlock(0, 2));
  CHECK(r.status.ok());
  CHECK(r.counts.skipped == 1);
  REQUIRE(r.entries.size() == 1);  // the next block is read as usual
  CHECK(r.entries[0].alias().fast_key() == Alias(2).alias().fast_key());
}

TEST_CASE("a damaged block header ends the read with DATA_LOSS", "[bundle]") {
  std::string bytes = Write({Alias(1), Alias(2)}, /*block_bytes=*/1);
  bytes[kFileHeaderSize + 5] =
      static_cast<char>(bytes[kFileHeaderSize + 5] ^ 1);  // first block's size
  ReadAll r = Read(bytes);
  CHECK(r.entries.empty());
  CHECK(r.status.code() == Code::kDataLoss);
  CHECK_THAT(r.status.message(), Catch::Contains("bad header"));
}

TEST_CASE("data after the trailer is DATA_LOSS", "[bundle]") {
  ReadAll r = Read(Write({Alias(1)}) + "x");
  CHECK(r.entries.size() == 1);
  CHECK(r.status.code() == Code::kDataLoss);
}

TEST_CASE("the writer refuses an empty entry", "[bundle]") {
  std::string out;
  auto writer = BundleWriter::Create(StringSink(&out));
  REQUIRE(writer.ok());
  CHECK((*writer)->Add(v1::BundleEntry()).code() == Code::kInvalidArgument);
}
