#include "daemon/activity_interceptor.h"

namespace qdcache::daemon {
namespace {

// gRPC creates one per call and deletes it with the call: Begin and End
// bracket the call's whole life, however long its handler takes.
class ActivityInterceptor final : public grpc::experimental::Interceptor {
 public:
  explicit ActivityInterceptor(IdleMonitor& monitor) : monitor_(monitor) { monitor_.Begin(); }
  ~ActivityInterceptor() override { monitor_.End(); }
  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    methods->Proceed();
  }

 private:
  IdleMonitor& monitor_;
};

}  // namespace

grpc::experimental::Interceptor* ActivityInterceptorFactory::CreateServerInterceptor(
    grpc::experimental::ServerRpcInfo*) {
  return new ActivityInterceptor(monitor_);
}

}  // namespace qdcache::daemon
