// gRPC adapter over the Engine: authenticates and authorizes each call
// (CallAuthenticator; roles in auth/role.h), checks the request envelope
// (protocol version, batch limits), fans a batch out to the engine and
// answers when every item has its result. Converts Status to grpc::Status
// only here.
#pragma once

#include <cstddef>

#include "daemon/call_auth.h"
#include "daemon/engine.h"
#include "qdcache/v1/qdcache.grpc.pb.h"

namespace qdcache::daemon {

struct ServiceLimits {
  std::size_t max_batch = 4096;
};

class CompileCacheService final : public v1::CompileCache::CallbackService {
 public:
  // `auth` identifies callers; it must outlive the service.
  CompileCacheService(Engine& engine, const CallAuthenticator& auth, ServiceLimits limits);

  grpc::ServerUnaryReactor* Compile(grpc::CallbackServerContext* context,
                                    const v1::CompileRequest* request,
                                    v1::CompileResponse* response) override;
  grpc::ServerUnaryReactor* Lookup(grpc::CallbackServerContext* context,
                                   const v1::LookupRequest* request,
                                   v1::LookupResponse* response) override;
  grpc::ServerUnaryReactor* GetStats(grpc::CallbackServerContext* context,
                                     const v1::GetStatsRequest* request,
                                     v1::GetStatsResponse* response) override;
  grpc::ServerUnaryReactor* Explain(grpc::CallbackServerContext* context,
                                    const v1::ExplainRequest* request,
                                    v1::ExplainResponse* response) override;
  grpc::ServerUnaryReactor* List(grpc::CallbackServerContext* context, const v1::ListRequest* request,
                                 v1::ListResponse* response) override;
  grpc::ServerUnaryReactor* Inspect(grpc::CallbackServerContext* context,
                                    const v1::InspectRequest* request,
                                    v1::InspectResponse* response) override;
  grpc::ServerUnaryReactor* Evict(grpc::CallbackServerContext* context, const v1::EvictRequest* request,
                                  v1::EvictResponse* response) override;
  grpc::ServerUnaryReactor* Verify(grpc::CallbackServerContext* context,
                                   const v1::VerifyRequest* request,
                                   v1::VerifyResponse* response) override;

 private:
  Engine& engine_;
  const CallAuthenticator& auth_;
  const ServiceLimits limits_;
};

}  // namespace qdcache::daemon
