// Writes a bundle (bundle_format.h) to a Sink, one entry at a time: entries
// are framed into a block buffer that is compressed and written when it
// reaches kTargetBlockBytes, so memory is bounded by one block (or one
// entry, when an entry is larger) whatever the bundle's size.
//
// Not thread-safe: one writer per bundle, used from one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "bundle/bundle_format.h"
#include "bundle/bundle_io.h"
#include "common/expected.h"
#include "qdcache/v1/qdcache.pb.h"

namespace qdcache::bundle {

struct BundleTotals {
  std::uint64_t artifacts = 0;
  std::uint64_t aliases = 0;
  std::uint64_t raw_bytes = 0;     // serialized entries, before framing and compression
  std::uint64_t stored_bytes = 0;  // bytes written to the sink, header and trailer included
};

struct WriterOptions {
  int compression_level = 3;                    // zstd level
  std::size_t block_bytes = kTargetBlockBytes;  // tests make it small
};

class BundleWriter {
 public:
  // Writes the file header. `sink` must outlive the writer.
  [[nodiscard]] static Expected<std::unique_ptr<BundleWriter>> Create(Sink sink,
                                                                      WriterOptions options = {});
  ~BundleWriter();
  BundleWriter(const BundleWriter&) = delete;
  BundleWriter& operator=(const BundleWriter&) = delete;

  // Adds one entry (an artifact or an alias; INVALID_ARGUMENT for an empty
  // one or one larger than a block may be). May write a block.
  [[nodiscard]] Status Add(const v1::BundleEntry& entry);
  // Writes the last block and the trailer. The writer takes no more entries.
  [[nodiscard]] Expected<BundleTotals> Finish();
  // Totals so far (stored_bytes: what reached the sink).
  [[nodiscard]] const BundleTotals& totals() const { return totals_; }

 private:
  BundleWriter(Sink sink, WriterOptions options);
  [[nodiscard]] Status Write(std::string_view bytes);
  [[nodiscard]] Status FlushBlock();

  Sink sink_;
  const WriterOptions options_;
  void* cctx_;         // ZSTD_CCtx*
  std::string block_;  // raw frames of the block being filled
  std::uint32_t block_entries_ = 0;
  std::string compressed_;  // reused between blocks
  BundleTotals totals_;
  bool finished_ = false;
};

}  // namespace qdcache::bundle
