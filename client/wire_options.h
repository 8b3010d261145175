// Compile options into a qdcache.v1.CompileOptions, by catalogue row
// (common/compile_options.h): how the CLI, the warm manifest and the C ABI
// (and so Python) set them, none of them naming an option itself.
#pragma once

#include <cstdint>
#include <string_view>

#include "common/compile_options.h"
#include "qdcache/v1/qdcache.pb.h"

namespace qdcache::client {

// Sets `spec`'s field to `value` after checking its range.
[[nodiscard]] Status SetWireOption(v1::CompileOptions& options, const OptionSpec& spec, std::uint32_t value);

// Sets the option `name` (as FindOption takes it) from `text` (as
// SetOptionText takes it). INVALID_ARGUMENT for an unknown name (listing the
// known ones) or a value it cannot take; the message names the option.
[[nodiscard]] Status SetWireOptionText(v1::CompileOptions& options, std::string_view name, std::string_view text);

}  // namespace qdcache::client
