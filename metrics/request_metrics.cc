#include "metrics/request_metrics.h"

#include <chrono>
#include <string>

namespace qdcache::metrics {
namespace {

using Clock = std::chrono::steady_clock;

// From 100 us (a memory-cache hit) to minutes (a cold compile batch).
const prometheus::Histogram::BucketBoundaries kRequestBuckets = {
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
    0.25,   0.5,     1,      2.5,   5,      10,    30,   60,    120,  300};

// gRPC creates one per call and deletes it with the call.
class RequestInterceptor final : public grpc::experimental::Interceptor {
 public:
  RequestInterceptor(RequestMetrics& metrics, const char* method)
      : metrics_(metrics), method_(method != nullptr ? method : ""), start_(Clock::now()) {
    metrics_.Started();
  }
  ~RequestInterceptor() override {
    if (!finished_) Finish(grpc::StatusCode::CANCELLED);
  }

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    if (!finished_ && methods->QueryInterceptionHookPoint(
                          grpc::experimental::InterceptionHookPoints::PRE_SEND_STATUS)) {
      Finish(methods->GetSendStatus().error_code());
    }
    methods->Proceed();
  }

 private:
  void Finish(grpc::StatusCode code) {
    finished_ = true;
    metrics_.Finished(method_, code, std::chrono::duration<double>(Clock::now() - start_).count());
  }

  RequestMetrics& metrics_;
  const std::string method_;
  const Clock::time_point start_;
  bool finished_ = false;  // hooks of one call run one at a time
};

class RequestInterceptorFactory final
    : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  explicit RequestInterceptorFactory(RequestMetrics& metrics) : metrics_(metrics) {}
  grpc::experimental::Interceptor* CreateServerInterceptor(
      grpc::experimental::ServerRpcInfo* info) override {
    return new RequestInterceptor(metrics_, info->method());
  }

 private:
  RequestMetrics& metrics_;
};

}  // namespace

std::string_view StatusCodeName(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK:
      return "OK";
    case grpc::StatusCode::CANCELLED:
      return "CANCELLED";
    case grpc::StatusCode::UNKNOWN:
      return "UNKNOWN";
    case grpc::StatusCode::INVALID_ARGUMENT:
      return "INVALID_ARGUMENT";
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return "DEADLINE_EXCEEDED";
    case grpc::StatusCode::NOT_FOUND:
      return "NOT_FOUND";
    case grpc::StatusCode::ALREADY_EXISTS:
      return "ALREADY_EXISTS";
    case grpc::StatusCode::PERMISSION_DENIED:
      return "PERMISSION_DENIED";
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return "RESOURCE_EXHAUSTED";
    case grpc::StatusCode::FAILED_PRECONDITION:
      return "FAILED_PRECONDITION";
    case grpc::StatusCode::ABORTED:
      return "ABORTED";
    case grpc::StatusCode::OUT_OF_RANGE:
      return "OUT_OF_RANGE";
    case grpc::StatusCode::UNIMPLEMENTED:
      return "UNIMPLEMENTED";
    case grpc::StatusCode::INTERNAL:
      return "INTERNAL";
    case grpc::StatusCode::UNAVAILABLE:
      return "UNAVAILABLE";
    case grpc::StatusCode::DATA_LOSS:
      return "DATA_LOSS";
    case grpc::StatusCode::UNAUTHENTICATED:
      return "UNAUTHENTICATED";
    default:
      return "UNKNOWN";
  }
}

RequestMetrics::RequestMetrics(prometheus::Registry& registry)
    : requests_(prometheus::BuildCounter()
                    .Name("qdcache_grpc_requests_total")
                    .Help("gRPC calls handled, by service, method and status code")
                    .Register(registry)),
      durations_(prometheus::BuildHistogram()
                     .Name("qdcache_grpc_request_duration_seconds")
                     .Help("Time from a gRPC call's arrival to its status, by service, method and "
                           "status code")
                     .Register(registry)),
      in_flight_(prometheus::BuildGauge()
                     .Name("qdcache_grpc_requests_in_flight")
                     .Help("gRPC calls being handled now")
                     .Register(registry)
                     .Add({})) {}

std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>
RequestMetrics::InterceptorFactory() {
  return std::make_unique<RequestInterceptorFactory>(*this);
}

void RequestMetrics::Started() { in_flight_.Increment(); }

void RequestMetrics::Finished(std::string_view full_method, grpc::StatusCode code, double seconds) {
  in_flight_.Decrement();
  std::string service = std::string(kOtherLabel), method = std::string(kOtherLabel);
  // "/package.Service/Method"
  const std::size_t slash = full_method.rfind('/');
  if (full_method.size() > 1 && full_method.front() == '/' && slash > 1 &&
      slash + 1 < full_method.size() && methods_.Of(full_method) != kOtherLabel) {
    service = std::string(full_method.substr(1, slash - 1));
    method = std::string(full_method.substr(slash + 1));
  }
  const prometheus::Labels labels{
      {"service", service}, {"method", method}, {"code", std::string(StatusCodeName(code))}};
  requests_.Add(labels).Increment();
  durations_.Add(labels, kRequestBuckets).Observe(seconds);
}

}  // namespace qdcache::metrics
