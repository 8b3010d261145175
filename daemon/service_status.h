// Status conversions at the gRPC edge, shared by the service's files.
#pragma once

#include <grpcpp/support/status.h>

#include <string>

#include "common/status.h"
#include "qdcache/v1/qdcache.pb.h"

namespace qdcache::daemon {

// FAILED_PRECONDITION unless the header speaks PROTOCOL_VERSION_1.
inline grpc::Status CheckHeader(const v1::RequestHeader& header) {
  if (header.protocol_version() != v1::PROTOCOL_VERSION_1) {
    return {grpc::StatusCode::FAILED_PRECONDITION, "protocol_version " +
                                                       std::to_string(header.protocol_version()) +
                                                       " is not supported (this daemon speaks 1)"};
  }
  return grpc::Status::OK;
}

// Same code numbers on both sides.
inline grpc::Status ToGrpc(const Status& s) {
  return s.ok() ? grpc::Status::OK
                : grpc::Status(static_cast<grpc::StatusCode>(s.code()), s.message());
}

// RESOURCE_EXHAUSTED when a batch of `size` items is over --max-batch.
inline Status CheckBatch(int size, std::size_t limit, const char* what) {
  if (static_cast<std::size_t>(size) > limit) {
    return ResourceExhausted(std::string(what) + " batch of " + std::to_string(size) +
                             " exceeds the limit of " + std::to_string(limit) + " (--max-batch)");
  }
  return Status::Ok();
}

// A streaming call refused before it started: finishes at once.
template <typename Reactor>
class Refused final : public Reactor {
 public:
  explicit Refused(grpc::Status status) { this->Finish(std::move(status)); }
  void OnDone() override { delete this; }
};

}  // namespace qdcache::daemon
