#include "bundle/bundle_reader.h"

#include <zstd.h>

#include <algorithm>

#include "bundle/bundle_bytes.h"
#include "bundle/bundle_format.h"

namespace qdcache::bundle {
namespace {

constexpr std::size_t kReadChunk = 1u << 20;
constexpr std::size_t kMaxProblems = 16;

}  // namespace

Expected<std::unique_ptr<BundleReader>> BundleReader::Open(Source source) {
  std::unique_ptr<BundleReader> r(new BundleReader(std::move(source)));
  if (r->dctx_ == nullptr) return Internal("cannot create a zstd decompression context");
  std::string header;
  QDC_ASSIGN_OR_RETURN(bool complete, r->ReadExactly(kFileHeaderSize, &header));
  if (!complete || std::string_view(header).substr(0, kMagic.size()) != kMagic) {
    return InvalidArgument("not a qdcache bundle (no bundle header)");
  }
  const std::uint32_t version = GetU32(std::string_view(header).substr(8));
  if (version != kFormatVersion) {
    return FailedPrecondition("bundle format version " + std::to_string(version) +
                              " is not supported (this qdcache reads version " +
                              std::to_string(kFormatVersion) + ")");
  }
  return r;
}

BundleReader::BundleReader(Source source) : source_(std::move(source)), dctx_(ZSTD_createDCtx()) {}

BundleReader::~BundleReader() { ZSTD_freeDCtx(static_cast<ZSTD_DCtx*>(dctx_)); }

Expected<bool> BundleReader::ReadExactly(std::size_t n, std::string* out) {
  out->clear();
  while (out->size() < n) {
    const std::size_t have = out->size();
    const std::size_t want = std::min(kReadChunk, n - have);
    out->resize(have + want);
    QDC_ASSIGN_OR_RETURN(std::size_t got, source_(out->data() + have, want));
    out->resize(have + got);
    counts_.stored_bytes += got;
    if (got == 0) return false;
  }
  return true;
}

Status BundleReader::Fail(Status status) {
  failed_ = status;
  return status;
}

void BundleReader::Skip(std::uint64_t entries, std::string reason) {
  counts_.skipped += entries;
  if (problems_.size() < kMaxProblems) problems_.push_back(std::move(reason));
}

Status BundleReader::ReadBlock() {
  const std::string where = "block " + std::to_string(block_index_++);
  std::string header;
  QDC_ASSIGN_OR_RETURN(bool complete, ReadExactly(kBlockHeaderSize, &header));
  if (!complete) return Fail(DataLoss("the bundle is truncated (it ends before its trailer)"));
  const std::string_view h = header;
  if (h.substr(16, 4) != ShortCheck(h.substr(0, 16), 4)) {
    return Fail(DataLoss("the bundle is damaged: " + where +
                         " has a bad header (the rest cannot be read)"));
  }
  const std::uint32_t stored = GetU32(h.substr(4));
  const std::uint32_t raw = GetU32(h.substr(8));
  const std::uint32_t count = GetU32(h.substr(12));
  if (h[0] == kTrailerBlock) return ReadTrailer(stored, raw, count);
  if (h[0] != kEntriesBlock) {
    return Fail(DataLoss("the bundle is damaged: " + where + " has an unknown kind"));
  }
  if (stored > kMaxBlockBytes || raw > kMaxBlockBytes) {
    return Fail(DataLoss("the bundle is damaged: " + where + " claims " +
                         std::to_string(std::max(stored, raw)) + " bytes, more than the limit of " +
                         std::to_string(kMaxBlockBytes)));
  }
  QDC_ASSIGN_OR_RETURN(complete, ReadExactly(stored, &stored_));
  if (!complete) return Fail(DataLoss("the bundle is truncated (in " + where + ")"));
  // The raw size is allocated only once the frame itself, which is in hand
  // and checked by zstd, says the same: a header cannot make us allocate
  // more than the bytes the bundle really holds.
  if (ZSTD_getFrameContentSize(stored_.data(), stored_.size()) != raw) {
    block_remaining_ = 0;
    Skip(count, where + " does not decompress (its frame disagrees with its header): " +
                    std::to_string(count) + " entries skipped");
    return Status::Ok();
  }
  if (raw_.capacity() > 4 * kReadChunk && raw <= 4 * kReadChunk) raw_ = std::string();  // after a huge block
  raw_.resize(raw);
  const std::size_t n = ZSTD_decompressDCtx(static_cast<ZSTD_DCtx*>(dctx_), raw_.data(),
                                            raw_.size(), stored_.data(), stored_.size());
  offset_ = 0;
  block_remaining_ = count;
  if (ZSTD_isError(n) || n != raw) {
    raw_.clear();
    block_remaining_ = 0;
    Skip(count, where + " does not decompress (" +
                    std::string(ZSTD_isError(n) ? ZSTD_getErrorName(n) : "wrong size") +
                    "): " + std::to_string(count) + " entries skipped");
  }
  if (stored_.capacity() > 4 * kReadChunk) stored_ = std::string();  // after a huge entry
  return Status::Ok();
}

Status BundleReader::ReadTrailer(std::uint32_t stored, std::uint32_t raw, std::uint32_t count) {
  if (stored != kTrailerSize || raw != kTrailerSize || count != 0) {
    return Fail(DataLoss("the bundle is damaged: malformed trailer"));
  }
  std::string body;
  QDC_ASSIGN_OR_RETURN(bool complete, ReadExactly(kTrailerSize, &body));
  if (!complete) return Fail(DataLoss("the bundle is truncated (in its trailer)"));
  const std::string_view b = body;
  if (b.substr(24, 8) != ShortCheck(b.substr(0, 24), 8)) {
    return Fail(DataLoss("the bundle is damaged: bad trailer checksum"));
  }
  trailer_ = Trailer{GetU64(b), GetU64(b.substr(8)), GetU64(b.substr(16))};
  std::string after;
  QDC_ASSIGN_OR_RETURN(bool more, ReadExactly(1, &after));
  if (more) return Fail(DataLoss("the bundle has data after its trailer"));
  return Status::Ok();
}

Expected<std::optional<v1::BundleEntry>> BundleReader::Next() {
  if (!failed_.ok()) return failed_;
  while (!trailer_) {
    if (block_remaining_ == 0) {
      if (Status s = ReadBlock(); !s.ok()) return Fail(s);
      continue;
    }
    const std::string_view rest = std::string_view(raw_).substr(offset_);
    const std::uint32_t length = rest.size() >= kFrameHeaderSize ? GetU32(rest) : 0;
    if (rest.size() < kFrameHeaderSize || length > rest.size() - kFrameHeaderSize) {
      Skip(block_remaining_, "a frame runs past the end of its block: " +
                                 std::to_string(block_remaining_) + " entries skipped");
      block_remaining_ = 0;
      continue;
    }
    const std::string_view body = rest.substr(kFrameHeaderSize, length);
    offset_ += kFrameHeaderSize + length;
    --block_remaining_;
    if (rest.substr(4, 8) != ShortCheck(body, 8)) {
      Skip(1, "an entry fails its checksum");
      continue;
    }
    v1::BundleEntry entry;
    if (!entry.ParseFromArray(body.data(), static_cast<int>(body.size()))) {
      Skip(1, "an entry does not decode");
      continue;
    }
    if (entry.entry_case() == v1::BundleEntry::ENTRY_NOT_SET) {
      Skip(1, "an entry of an unknown kind (written by a newer qdcache?)");
      continue;
    }
    counts_.raw_bytes += body.size();
    ++(entry.has_artifact() ? counts_.artifacts : counts_.aliases);
    return std::optional<v1::BundleEntry>(std::move(entry));
  }
  return std::optional<v1::BundleEntry>();
}

}  // namespace qdcache::bundle
