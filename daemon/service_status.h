// Status conversions at the gRPC edge, shared by the service's files.
#pragma once

#include <grpcpp/support/status.h>

#include <string>

#include "common/status.h"
#include "daemon/request_checks.h"
#include "qdcache/v1/qdcache.pb.h"

namespace qdcache::daemon {

// Same code numbers on both sides.
inline grpc::Status ToGrpc(const Status& s) {
  return s.ok() ? grpc::Status::OK
                : grpc::Status(static_cast<grpc::StatusCode>(s.code()), s.message());
}

// A streaming call refused before it started: finishes at once.
template <typename Reactor>
class Refused final : public Reactor {
 public:
  explicit Refused(grpc::Status status) { this->Finish(std::move(status)); }
  void OnDone() override { delete this; }
};

}  // namespace qdcache::daemon
