#include "metrics/request_metrics.h"

#include <google/protobuf/descriptor.h>

#include <atomic>
#include <chrono>
#include <string>

#include "common/status.h"
#include "metrics/bounded_label.h"
#include "qdcache/v1/qdcache.grpc.pb.h"

namespace qdcache::metrics {
namespace {

using Clock = std::chrono::steady_clock;
using ServedMethods = std::unordered_map<std::string, std::pair<std::string, std::string>>;

// CodeName names gRPC's codes: the numbering must be the same.
static_assert(static_cast<int>(Code::kOk) == grpc::StatusCode::OK);
static_assert(static_cast<int>(Code::kDeadlineExceeded) == grpc::StatusCode::DEADLINE_EXCEEDED);
static_assert(static_cast<int>(Code::kUnauthenticated) == grpc::StatusCode::UNAUTHENTICATED);

void AddService(const google::protobuf::ServiceDescriptor* service, ServedMethods* served) {
  if (service == nullptr) return;
  for (int i = 0; i < service->method_count(); ++i) {
    const std::string& method = service->method(i)->name();
    served->emplace("/" + service->full_name() + "/" + method,
                    std::make_pair(service->full_name(), method));
  }
}

// Every method the daemon serves, from the services' descriptors where the
// process has them.
ServedMethods MethodsServed() {
  ServedMethods served;
  const google::protobuf::DescriptorPool* pool = google::protobuf::DescriptorPool::generated_pool();
  // The file that defines qdcache.v1 is linked into this library.
  AddService(v1::Stats::descriptor()->file()->pool()->FindServiceByName(
                 v1::CompileCache::service_full_name()),
             &served);
  // Generated code of libgrpc++_reflection, which the daemon links (absent
  // elsewhere, where nothing serves reflection).
  AddService(pool->FindServiceByName("grpc.reflection.v1alpha.ServerReflection"), &served);
  // gRPC serves health from a schema of its own, not in protobuf's pool.
  for (const char* method : {"Check", "Watch"}) {
    served.emplace(std::string("/grpc.health.v1.Health/") + method,
                   std::make_pair("grpc.health.v1.Health", method));
  }
  return served;
}

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
    if (!finished_.exchange(true)) Finish(grpc::StatusCode::CANCELLED);
  }

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(
            grpc::experimental::InterceptionHookPoints::PRE_SEND_STATUS) &&
        !finished_.exchange(true)) {
      Finish(methods->GetSendStatus().error_code());
    }
    methods->Proceed();
  }

 private:
  // Once per call: the caller has set finished_.
  void Finish(grpc::StatusCode code) {
    metrics_.Finished(method_, code, std::chrono::duration<double>(Clock::now() - start_).count());
  }

  RequestMetrics& metrics_;
  const std::string method_;
  const Clock::time_point start_;
  // Hooks of a callback call may run on different threads (and the
  // destructor on yet another): whoever sets it first reports the call.
  std::atomic<bool> finished_{false};
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
                     .Add({})),
      served_(MethodsServed()) {}

std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>
RequestMetrics::InterceptorFactory() {
  return std::make_unique<RequestInterceptorFactory>(*this);
}

void RequestMetrics::Started() { in_flight_.Increment(); }

void RequestMetrics::Finished(std::string_view full_method, grpc::StatusCode code, double seconds) {
  in_flight_.Decrement();
  const auto served = served_.find(std::string(full_method));
  const bool known = served != served_.end();
  const prometheus::Labels labels{
      {"service", known ? served->second.first : std::string(kOtherLabel)},
      {"method", known ? served->second.second : std::string(kOtherLabel)},
      {"code", std::string(CodeName(static_cast<Code>(code)))}};
  requests_.Add(labels).Increment();
  durations_.Add(labels, kRequestBuckets).Observe(seconds);
}

}  // namespace qdcache::metrics
