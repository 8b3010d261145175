// The qdcache bundle file: what `qdcache export` writes and `qdcache import`
// reads. Internal layout shared by BundleWriter and BundleReader; callers use
// those.
//
//   file    := header block* trailer
//   header  := magic "QDCBUNDL" (8 bytes) | u32 format version (kFormatVersion)
//              | u32 flags (0)                                       16 bytes
//   block   := block header (20 bytes) | stored body (stored_size bytes)
//   block header:
//     0   1  kind: 'B' (entries) or 'T' (trailer)
//     1   3  zero
//     4   4  u32 stored_size: bytes of the body as stored
//     8   4  u32 raw_size: bytes of the body once decompressed
//     12  4  u32 entry count
//     16  4  first 4 bytes of SHA-256(bytes 0..15): the header checks itself
//   entries body := one zstd frame (content checksum on) that decompresses to
//              exactly raw_size bytes: `entry count` frames
//   frame   := u32 body length | 8 bytes: first 8 of SHA-256(body) | body,
//              body = a serialized qdcache.v1.BundleEntry
//   trailer body (uncompressed, stored_size = raw_size = 32, count 0):
//              u64 artifacts | u64 aliases | u64 raw entry bytes
//              | 8 bytes: first 8 of SHA-256(the 24 bytes before)
//   Every integer is little-endian. Nothing follows the trailer.
//
// Why independently compressed blocks (of about kTargetBlockBytes) rather
// than one zstd stream over the whole file: a byte flipped in a compressed
// stream garbles everything after it, so "skip the bad entry, keep the rest"
// would be impossible. With blocks, damage costs one block's entries (its
// header says how many, so they are counted), and the next block is found
// from the header's size. Blocks of a megabyte compress about as well as one
// stream, and memory stays bounded by the larger of a block and the largest
// single entry, whatever the size of the bundle.
//
// What a reader trusts: nothing before it is checked. Sizes beyond kMaxBlockBytes
// are refused before anything is allocated; bodies are read incrementally, so a
// lying size on a short file costs no more memory than the file holds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace qdcache::bundle {

inline constexpr std::string_view kMagic = "QDCBUNDL";
inline constexpr std::uint32_t kFormatVersion = 1;
inline constexpr std::size_t kFileHeaderSize = 16;
inline constexpr std::size_t kBlockHeaderSize = 20;
inline constexpr std::size_t kFrameHeaderSize = 12;
inline constexpr std::size_t kTrailerSize = 32;
inline constexpr char kEntriesBlock = 'B';
inline constexpr char kTrailerBlock = 'T';

// A block is written once its raw frames reach this size.
inline constexpr std::size_t kTargetBlockBytes = 1u << 20;
// Largest stored or raw block size a reader accepts (one artifact can be
// as large as a gRPC message, and gRPC messages stop below 2 GiB).
inline constexpr std::uint32_t kMaxBlockBytes = 1u << 30;

}  // namespace qdcache::bundle
