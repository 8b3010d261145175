#include "client/fast_key.h"

#include "common/digest.h"

namespace qdcache::client {

Expected<std::string> FastKeyFromHex(std::string_view hex) {
  std::string bytes;
  if (hex.empty() || !FromHex(hex, &bytes)) {
    return InvalidArgument("fast key \"" + std::string(hex) +
                           "\" is not an even-length hex string (a fast key given as text is hex; "
                           "for the bytes of the text itself use --fast-key-text / \"fast_key_text\")");
  }
  return bytes;
}

}  // namespace qdcache::client
