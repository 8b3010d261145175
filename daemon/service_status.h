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

}  // namespace qdcache::daemon
