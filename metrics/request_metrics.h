// gRPC request metrics, recorded by a server interceptor for every call the
// server dispatches (qdcache.v1, health, reflection):
//   qdcache_grpc_requests_total{service,method,code}            counter
//   qdcache_grpc_request_duration_seconds{service,method,code}  histogram
//   qdcache_grpc_requests_in_flight                             gauge
// The duration runs from the call's arrival to its status being sent; a call
// that ends without sending one (the client went away) counts as CANCELLED.
// Only the methods the daemon serves are named; any other path a client
// sends (a made-up method, answered UNIMPLEMENTED) counts as service and
// method "other", so clients cannot add series.
//
// Threads: everything may be called concurrently. The registry, and this
// object, must outlive the grpc::Server the factory is installed on.
#pragma once

#include <grpcpp/support/server_interceptor.h>
#include <grpcpp/support/status.h>
#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

namespace qdcache::metrics {

class RequestMetrics {
 public:
  explicit RequestMetrics(prometheus::Registry& registry);

  // For ServerBuilder::experimental().SetInterceptorCreators.
  [[nodiscard]] std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>
  InterceptorFactory();

  // What the interceptor reports: a call arrived; a call ended.
  void Started();
  // `full_method` as gRPC names it: "/package.Service/Method".
  void Finished(std::string_view full_method, grpc::StatusCode code, double seconds);

 private:
  prometheus::Family<prometheus::Counter>& requests_;
  prometheus::Family<prometheus::Histogram>& durations_;
  prometheus::Gauge& in_flight_;
  // "/package.Service/Method" -> {service, method} labels; immutable after
  // construction.
  const std::unordered_map<std::string, std::pair<std::string, std::string>> served_;
};

}  // namespace qdcache::metrics
