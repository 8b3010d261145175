// The envelope checks every qdcache.v1 call passes before its items are
// looked at (docs/protocol.md §3): the protocol version of its header, and
// the size of its batch. Transport-free, so that the request fuzzer
// (tests/fuzz) runs these very checks.
#pragma once

#include <cstddef>
#include <string>

#include "common/status.h"
#include "qdcache/v1/qdcache.pb.h"

namespace qdcache::daemon {

// FAILED_PRECONDITION unless the header speaks PROTOCOL_VERSION_1.
[[nodiscard]] inline Status CheckHeader(const v1::RequestHeader& header) {
  if (header.protocol_version() != v1::PROTOCOL_VERSION_1) {
    return FailedPrecondition("protocol_version " + std::to_string(header.protocol_version()) +
                              " is not supported (this daemon speaks 1)");
  }
  return Status::Ok();
}

// RESOURCE_EXHAUSTED when a batch of `size` items is over --max-batch.
[[nodiscard]] inline Status CheckBatch(int size, std::size_t limit, const char* what) {
  if (static_cast<std::size_t>(size) > limit) {
    return ResourceExhausted(std::string(what) + " batch of " + std::to_string(size) + " exceeds the limit of " +
                             std::to_string(limit) + " (--max-batch)");
  }
  return Status::Ok();
}

}  // namespace qdcache::daemon
