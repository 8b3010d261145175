// gRPC adapter of the IdleMonitor: every RPC the server handles, from its
// arrival until its call object is destroyed (after the answer is sent or
// the call is cancelled), is one activity, whatever the method (compiles,
// admin calls, health checks).
#pragma once

#include <grpcpp/support/server_interceptor.h>

#include "daemon/idle_monitor.h"

namespace qdcache::daemon {

// Register with ServerBuilder::experimental().SetInterceptorCreators. The
// monitor must outlive the grpc::Server (and so every call).
class ActivityInterceptorFactory final
    : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  explicit ActivityInterceptorFactory(IdleMonitor& monitor) : monitor_(monitor) {}
  grpc::experimental::Interceptor* CreateServerInterceptor(
      grpc::experimental::ServerRpcInfo* info) override;

 private:
  IdleMonitor& monitor_;
};

}  // namespace qdcache::daemon
