#include "bundle/bundle_writer.h"

#include <zstd.h>

#include "bundle/bundle_bytes.h"

namespace qdcache::bundle {
namespace {

std::string BlockHeader(char kind, std::uint32_t stored, std::uint32_t raw, std::uint32_t count) {
  std::string h;
  h.push_back(kind);
  h.append(3, '\0');
  PutU32(&h, stored);
  PutU32(&h, raw);
  PutU32(&h, count);
  h.append(ShortCheck(h, 4));
  return h;
}

}  // namespace

Expected<std::unique_ptr<BundleWriter>> BundleWriter::Create(Sink sink, WriterOptions options) {
  std::unique_ptr<BundleWriter> w(new BundleWriter(std::move(sink), options));
  if (w->cctx_ == nullptr) return Internal("cannot create a zstd compression context");
  std::string header(kMagic);
  PutU32(&header, kFormatVersion);
  PutU32(&header, 0);
  QDC_RETURN_IF_ERROR(w->Write(header));
  return w;
}

BundleWriter::BundleWriter(Sink sink, WriterOptions options)
    : sink_(std::move(sink)), options_(options), cctx_(ZSTD_createCCtx()) {
  if (cctx_ == nullptr) return;
  auto* cctx = static_cast<ZSTD_CCtx*>(cctx_);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, options_.compression_level);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
}

BundleWriter::~BundleWriter() { ZSTD_freeCCtx(static_cast<ZSTD_CCtx*>(cctx_)); }

Status BundleWriter::Write(std::string_view bytes) {
  QDC_RETURN_IF_ERROR(sink_(bytes));
  totals_.stored_bytes += bytes.size();
  return Status::Ok();
}

Status BundleWriter::Add(const v1::BundleEntry& entry) {
  if (finished_) return Internal("bundle entry added after Finish");
  if (entry.entry_case() == v1::BundleEntry::ENTRY_NOT_SET) {
    return InvalidArgument("an empty bundle entry");
  }
  const std::size_t size = entry.ByteSizeLong();
  if (size + kFrameHeaderSize > kMaxBlockBytes) {
    return InvalidArgument("a bundle entry of " + std::to_string(size) + " bytes is too large");
  }
  std::string body;
  if (!entry.SerializeToString(&body)) return Internal("cannot serialize a bundle entry");
  if (!block_.empty() && block_.size() + kFrameHeaderSize + body.size() > options_.block_bytes) {
    QDC_RETURN_IF_ERROR(FlushBlock());
  }
  PutU32(&block_, static_cast<std::uint32_t>(body.size()));
  block_.append(ShortCheck(body, 8));
  block_.append(body);
  ++block_entries_;
  totals_.raw_bytes += body.size();
  if (entry.has_artifact()) {
    ++totals_.artifacts;
  } else {
    ++totals_.aliases;
  }
  if (block_.size() >= options_.block_bytes) QDC_RETURN_IF_ERROR(FlushBlock());
  return Status::Ok();
}

Status BundleWriter::FlushBlock() {
  if (block_entries_ == 0) return Status::Ok();
  compressed_.resize(ZSTD_compressBound(block_.size()));
  const std::size_t n = ZSTD_compress2(static_cast<ZSTD_CCtx*>(cctx_), compressed_.data(),
                                       compressed_.size(), block_.data(), block_.size());
  if (ZSTD_isError(n)) return Internal(std::string("zstd: ") + ZSTD_getErrorName(n));
  if (n > kMaxBlockBytes) return InvalidArgument("a bundle block is too large");
  QDC_RETURN_IF_ERROR(
      Write(BlockHeader(kEntriesBlock, static_cast<std::uint32_t>(n),
                        static_cast<std::uint32_t>(block_.size()), block_entries_)));
  QDC_RETURN_IF_ERROR(Write(std::string_view(compressed_.data(), n)));
  block_.clear();
  block_entries_ = 0;
  if (compressed_.capacity() > 4 * options_.block_bytes)
    compressed_ = std::string();  // after a huge entry
  if (block_.capacity() > 4 * options_.block_bytes) block_ = std::string();
  return Status::Ok();
}

Expected<BundleTotals> BundleWriter::Finish() {
  if (finished_) return Internal("bundle finished twice");
  QDC_RETURN_IF_ERROR(FlushBlock());
  finished_ = true;
  std::string trailer;
  PutU64(&trailer, totals_.artifacts);
  PutU64(&trailer, totals_.aliases);
  PutU64(&trailer, totals_.raw_bytes);
  trailer.append(ShortCheck(trailer, 8));
  QDC_RETURN_IF_ERROR(Write(BlockHeader(kTrailerBlock, kTrailerSize, kTrailerSize, 0)));
  QDC_RETURN_IF_ERROR(Write(trailer));
  return totals_;
}

}  // namespace qdcache::bundle
