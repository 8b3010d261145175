// "cuda:sm_90" / "cpu:x86-64+avx2" -> v1::Target (syntax only; the daemon
// validates that the SM / CPU / features exist).
#pragma once

#include <string_view>

#include "common/expected.h"
#include "common/target.h"
#include "qdcache/v1/qdcache.pb.h"

namespace qdcache::client {

[[nodiscard]] Expected<v1::Target> ParseWireTarget(std::string_view spec);
// A parsed target (common/target.h) as the wire message.
[[nodiscard]] v1::Target ToWireTarget(const Target& target);

}  // namespace qdcache::client
