// How a fast key written as text becomes bytes, the same in every client:
// the CLI's --fast-key and --fast-keys files, the warm manifest's "fast_key",
// the C ABI's request option "fast-key", and Python's `str` fast keys all
// read HEX ("c0ffee01" is the four bytes c0 ff ee 01). Raw bytes go as they
// are (the C ABI's qdcache_request_set_fast_key, Python's bytes); text meant
// as its own UTF-8 bytes is spelt so explicitly (--fast-key-text,
// "fast_key_text").
#pragma once

#include <string>
#include <string_view>

#include "common/expected.h"

namespace qdcache::client {

// The bytes of a hex fast key: a non-empty, even number of hex digits (either
// case) and nothing else (no "0x", no blanks). INVALID_ARGUMENT otherwise,
// quoting it and naming the text alternative.
[[nodiscard]] Expected<std::string> FastKeyFromHex(std::string_view hex);

}  // namespace qdcache::client
