// Little-endian integers and short checks for the bundle format. Internal.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/digest.h"

namespace qdcache::bundle {

inline void PutU32(std::string* out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
inline void PutU64(std::string* out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
inline std::uint32_t GetU32(std::string_view in) {
  std::uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(in[i]);
  return v;
}
inline std::uint64_t GetU64(std::string_view in) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(in[i]);
  return v;
}
// The first `n` bytes of SHA-256(bytes).
inline std::string ShortCheck(std::string_view bytes, std::size_t n) {
  return DigestBytes(Sha256(bytes)).substr(0, n);
}

}  // namespace qdcache::bundle
