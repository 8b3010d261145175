// Text that crosses the wire in protobuf `string` fields must be valid UTF-8
// (a peer's parser rejects the whole message otherwise). LLVM names, logs and
// diagnostics may hold any bytes, so they pass through here first.
#pragma once

#include <string>
#include <string_view>

namespace qdcache {

// `text` with every byte that is not part of a well-formed UTF-8 sequence
// written as "\xNN". Valid text comes back unchanged.
[[nodiscard]] std::string ValidUtf8(std::string_view text);

// The offset of the first byte of `text` that starts no well-formed UTF-8
// sequence, or std::string_view::npos when `text` is well-formed throughout.
[[nodiscard]] std::size_t FirstInvalidUtf8(std::string_view text);

}  // namespace qdcache
