// Reads a bundle (bundle_format.h) from a Source, one entry at a time,
// verifying as it goes. Damage that leaves the rest readable (a frame whose
// checksum fails or that does not decode, an entry of an unknown kind, a
// block that does not decompress) skips the entries concerned and counts
// them; damage that does not (a truncated file, a damaged block header) ends
// the read with DATA_LOSS after every entry before it was returned.
//
// Memory: one block (about a megabyte, or one large entry) at a time.
// Not thread-safe: one reader per stream, used from one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bundle/bundle_io.h"
#include "common/expected.h"
#include "qdcache/v1/qdcache.pb.h"

namespace qdcache::bundle {

struct ReadCounts {
  std::uint64_t artifacts = 0;     // good artifact entries returned
  std::uint64_t aliases = 0;       // good alias entries returned
  std::uint64_t skipped = 0;       // entries lost to damage
  std::uint64_t stored_bytes = 0;  // bytes consumed from the source
  std::uint64_t raw_bytes = 0;     // serialized entry bytes returned
};

// What the writer said it wrote (the trailer).
struct Trailer {
  std::uint64_t artifacts = 0;
  std::uint64_t aliases = 0;
  std::uint64_t raw_bytes = 0;
};

class BundleReader {
 public:
  // Reads and checks the file header. INVALID_ARGUMENT "not a qdcache
  // bundle" for other bytes; FAILED_PRECONDITION for another format version.
  // `source` must outlive the reader.
  [[nodiscard]] static Expected<std::unique_ptr<BundleReader>> Open(Source source);
  ~BundleReader();
  BundleReader(const BundleReader&) = delete;
  BundleReader& operator=(const BundleReader&) = delete;

  // The next good entry; nullopt once the trailer has been read. DATA_LOSS
  // when the stream is truncated or damaged past recovery; once Next has
  // failed it keeps returning that error.
  [[nodiscard]] Expected<std::optional<v1::BundleEntry>> Next();

  [[nodiscard]] const ReadCounts& counts() const { return counts_; }
  // Set once the trailer has been read.
  [[nodiscard]] const std::optional<Trailer>& trailer() const { return trailer_; }
  // Why entries were skipped: the first few reasons.
  [[nodiscard]] const std::vector<std::string>& problems() const { return problems_; }

 private:
  explicit BundleReader(Source source);
  // Reads exactly `n` bytes, growing `out` only as data arrives. False at
  // the end of the stream before `n` bytes.
  [[nodiscard]] Expected<bool> ReadExactly(std::size_t n, std::string* out);
  // Reads the next block: fills raw_ (entries) or trailer_. Sets failed_.
  [[nodiscard]] Status ReadBlock();
  [[nodiscard]] Status ReadTrailer(std::uint32_t stored, std::uint32_t raw, std::uint32_t count);
  [[nodiscard]] Status Fail(Status status);
  void Skip(std::uint64_t entries, std::string reason);

  Source source_;
  void* dctx_;                         // ZSTD_DCtx*
  std::string stored_;                 // the current block as stored (reused)
  std::string raw_;                    // its frames
  std::size_t offset_ = 0;             // next frame in raw_
  std::uint32_t block_remaining_ = 0;  // frames of the block not yet returned or skipped
  std::uint64_t block_index_ = 0;
  ReadCounts counts_;
  std::optional<Trailer> trailer_;
  std::vector<std::string> problems_;
  Status failed_;
};

}  // namespace qdcache::bundle
