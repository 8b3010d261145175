// gRPC adapter over the Engine: checks the request envelope (protocol
// version, batch limits), fans a batch out to the engine and answers when
// every item has its result. Converts Status to grpc::Status only here.
#pragma once

#include <atomic>
#include <cstddef>
#include <string>

#include "daemon/engine.h"
#include "daemon/peer_limiter.h"
#include "daemon/unix_acceptor.h"
#include "qdcache/v1/qdcache.grpc.pb.h"

namespace qdcache::daemon {

struct ServiceLimits {
  std::size_t max_batch = 4096;          // kernels per Compile, queries per Lookup
  std::size_t max_peer_requests = 256;   // RPCs one tenant may have in flight; 0: unlimited
};

// Callers that are not unix-socket peers (TCP) share this tenant until
// authentication gives them identities; it is no real uid (uids stop at 2^32-2).
inline constexpr std::uint32_t kNetworkTenant = 0xFFFFFFFEu;

class CompileCacheService final : public v1::CompileCache::CallbackService {
 public:
  // `peers` maps unix-socket connections to uids; it must outlive the service.
  CompileCacheService(Engine& engine, const PeerRegistry& peers, ServiceLimits limits);

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
  [[nodiscard]] Peer PeerOf(const grpc::CallbackServerContext* context) const;
  // Takes a per-peer slot for the call, or RESOURCE_EXHAUSTED.
  [[nodiscard]] Expected<PeerLimiter::Slot> Admit(const Peer& peer);
  // Unary calls whose whole work is `body`: header check, admission, body.
  template <typename Request, typename Body>
  grpc::ServerUnaryReactor* Answer(grpc::CallbackServerContext* context, const Request& request,
                                   Body&& body);

  Engine& engine_;
  const PeerRegistry& peers_;
  const ServiceLimits limits_;
  PeerLimiter peer_limiter_;
  std::atomic<std::uint64_t> peer_rejections_{0};
};

}  // namespace qdcache::daemon
