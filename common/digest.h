// SHA-256 digests. Used for artifact keys (over a canonical encoding) and for
// payload digests that are checked on every read.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/hex.h"

namespace qdcache {

using Digest = std::array<std::uint8_t, 32>;

// The size of every key the daemon makes (artifact keys, stage keys): raw
// SHA-256 bytes.
inline constexpr std::size_t kKeyBytes = std::tuple_size_v<Digest>;

[[nodiscard]] Digest Sha256(std::string_view data);

// Incremental hashing. Not thread-safe; one instance per computation.
class Sha256Hasher {
 public:
  Sha256Hasher();
  ~Sha256Hasher();
  Sha256Hasher(const Sha256Hasher&) = delete;
  Sha256Hasher& operator=(const Sha256Hasher&) = delete;

  void Update(std::string_view data);
  // Length-prefixed field, so ("ab","c") and ("a","bc") hash differently.
  void UpdateField(std::string_view data);
  void UpdateU64(std::uint64_t v);
  [[nodiscard]] Digest Finish();

 private:
  void* ctx_;  // EVP_MD_CTX*
};

[[nodiscard]] inline std::string ToHex(const Digest& d) {
  return ToHex(std::string_view(reinterpret_cast<const char*>(d.data()), d.size()));
}
[[nodiscard]] inline std::string DigestBytes(const Digest& d) {
  return std::string(reinterpret_cast<const char*>(d.data()), d.size());
}
// The first 16 hex digits of a raw key: how log lines name one.
[[nodiscard]] inline std::string ShortKey(std::string_view key) { return ToHex(key).substr(0, 16); }

}  // namespace qdcache
