// Protocol messages as JSON for programs (the C ABI's stats and result
// metadata): field names as in the .proto, integers as JSON numbers (64-bit
// ones exact, unlike protobuf's own JSON mapping, which quotes them), bytes
// as lowercase hex, enums by name, every field present (unset scalars as
// their defaults, unset messages and `optional` scalars as null) so a reader
// need not know which were set.
#pragma once

#include <google/protobuf/message.h>
#include <nlohmann/json.hpp>
#include <string_view>
#include <vector>

namespace qdcache::client {

// `message` as a JSON object, leaving out the top-level fields named in
// `skip` (e.g. an artifact's payload).
[[nodiscard]] nlohmann::json ProtoToJson(const google::protobuf::Message& message,
                                         const std::vector<std::string_view>& skip = {});

}  // namespace qdcache::client
