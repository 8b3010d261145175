// gRPC adapter over the Engine: checks the request envelope (protocol
// version, batch limits), fans a batch out to the engine and answers when
// every item has its result. Converts Status to grpc::Status only here.
#pragma once

#include <cstddef>

#include "daemon/engine.h"
#include "qdcache/v1/qdcache.grpc.pb.h"

namespace qdcache::daemon {

struct ServiceLimits {
  std::size_t max_batch = 4096;
};

class CompileCacheService final : public v1::CompileCache::CallbackService {
 public:
  CompileCacheService(Engine& engine, ServiceLimits limits);

  grpc::ServerUnaryReactor* Compile(grpc::CallbackServerContext* context,
                                    const v1::CompileRequest* request,
                                    v1::CompileResponse* response) override;
  grpc::ServerUnaryReactor* Lookup(grpc::CallbackServerContext* context,
                                   const v1::LookupRequest* request,
                                   v1::LookupResponse* response) override;
  grpc::ServerUnaryReactor* GetStats(grpc::CallbackServerContext* context,
                                     const v1::GetStatsRequest* request,
                                     v1::GetStatsResponse* response) override;

 private:
  Engine& engine_;
  const ServiceLimits limits_;
};

}  // namespace qdcache::daemon
