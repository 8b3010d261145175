// Bytes as lower-case hex digits and back (keys, digests). No OpenSSL here:
// common/digest.h, which computes digests, includes this.
#pragma once

#include <string>
#include <string_view>

namespace qdcache {

[[nodiscard]] std::string ToHex(std::string_view bytes);
// Returns false on odd length or a non-hex character.
[[nodiscard]] bool FromHex(std::string_view hex, std::string* out);

}  // namespace qdcache
