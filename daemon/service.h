// gRPC adapter over the Engine: authenticates and authorizes each call
// (CallAuthenticator; roles in auth/role.h), checks the request envelope
// (protocol version, batch limits), fans a batch out to the engine and
// answers when every item has its result. Converts Status to grpc::Status
// only here.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <string>

#include "daemon/call_auth.h"
#include "daemon/lean_answer_memo.h"
#include "engine/engine.h"
#include "daemon/peer_limiter.h"
#include "daemon/stats_report.h"
#include "qdcache/v1/qdcache.grpc.pb.h"

namespace qdcache::daemon {

struct ServiceLimits {
  std::size_t max_batch = 4096;          // kernels per Compile, queries per Lookup
  std::size_t max_peer_requests = 256;   // RPCs one tenant may have in flight; 0: unlimited
  std::uint64_t max_message_bytes = 256ull << 20;  // --max-message-bytes: Export sizes its chunks by it
};

// Where GetStats gets its figures: the daemon's other components' counters
// (StatsParts without the service's own), and how to zero the resettable
// ones. Both called from any thread.
struct StatsSource {
  std::function<StatsParts()> parts;
  std::function<void()> reset;
};

class CompileCacheService final : public v1::CompileCache::CallbackService {
 public:
  // `auth` identifies callers; it must outlive the service.
  // `stop` asks the daemon to drain and stop (Shutdown); it must return
  // without waiting for that. Empty: Shutdown answers UNIMPLEMENTED.
  CompileCacheService(engine::Engine& engine, const CallAuthenticator& auth, ServiceLimits limits,
                      StatsSource stats, std::function<void()> stop);

  // The counters GetStats answers with (every component's and the service's
  // own). Any thread.
  [[nodiscard]] v1::Stats CurrentStats();

  // A Lookup that came over the lean transport (daemon/lean_server.h) from
  // a unix-socket peer with this uid: the same admission (identity, role,
  // per-peer limit), checks and answers as the gRPC method. Any thread.
  // Hits come without their payloads: records[i] holds result i's.
  [[nodiscard]] Status LeanLookup(std::uint32_t uid, const v1::LookupRequest& request, v1::LookupResponse* response,
                                  std::vector<std::shared_ptr<const store::ArtifactRecord>>* records);

  // A kept all-hit LeanLookup answer (daemon/lean_answer_memo.h) served
  // again to the peer with this uid, for the client its request names (the
  // log's): admitted as LeanLookup admits (a peer refused now is refused),
  // then its hits counted as LeanLookup counted them. Any thread.
  [[nodiscard]] Status ReplayLeanLookup(std::uint32_t uid, std::string_view client, const LeanReplay& replay);

  // A Compile that came over the lean transport from a unix-socket peer
  // with this uid: admitted and checked as the gRPC method is. OK: its
  // items compile, and `done` is called once, from whichever thread
  // answers the last of them into `response`; `*cancel` is set to what
  // releases the call's compiles when its caller has gone (callable until
  // `done`). Otherwise the call's refusal, and `done` is never called.
  [[nodiscard]] Status LeanCompile(std::uint32_t uid, const v1::CompileRequest& request,
                                   v1::CompileResponse* response, std::function<void()> done,
                                   std::function<void()>* cancel);

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
  grpc::ServerUnaryReactor* ExplainStored(grpc::CallbackServerContext* context,
                                          const v1::ExplainStoredRequest* request,
                                          v1::ExplainStoredResponse* response) override;
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
  grpc::ServerUnaryReactor* Shutdown(grpc::CallbackServerContext* context,
                                     const v1::ShutdownRequest* request,
                                     v1::ShutdownResponse* response) override;
  grpc::ServerUnaryReactor* Targets(grpc::CallbackServerContext* context,
                                    const v1::TargetsRequest* request,
                                    v1::TargetsResponse* response) override;
  // Streaming calls (service_lookup_stream.cc, service_bundle.cc). A call
  // holds its per-peer slot until it is done.
  grpc::ServerWriteReactor<v1::LookupResponse>* LookupStream(grpc::CallbackServerContext* context,
                                                             const v1::LookupRequest* request) override;
  grpc::ServerWriteReactor<v1::ExportChunk>* Export(grpc::CallbackServerContext* context,
                                                    const v1::ExportRequest* request) override;
  grpc::ServerReadReactor<v1::ImportChunk>* Import(grpc::CallbackServerContext* context,
                                                   v1::ImportResponse* response) override;

 private:
  // A caller let in: who it is, and its per-peer slot.
  struct Admitted {
    engine::Peer peer;
    PeerLimiter::Slot slot;
    auth::Role role = auth::Role::kRead;
  };
  // Authenticates and authorizes `op`, then takes a per-peer slot:
  // UNAUTHENTICATED, PERMISSION_DENIED or RESOURCE_EXHAUSTED otherwise.
  [[nodiscard]] Expected<Admitted> Admit(grpc::CallbackServerContext& context, auth::Operation op);
  // Admit's second half: a per-peer slot for an authorized caller.
  [[nodiscard]] Expected<Admitted> AdmitIdentity(Expected<auth::Identity> who);
  // Compile's work for an admitted caller whose request passed the checks:
  // every item to the engine under `call`; `finish` once all are answered.
  // `caller_may_wait`: Engine::Compile's, for every item.
  void CompileBody(Admitted admitted, const v1::CompileRequest& request, v1::CompileResponse* response,
                   const std::shared_ptr<engine::Engine::Call>& call, std::function<void()> finish,
                   bool caller_may_wait = false);
  // Lookup's work for an admitted caller; with `records`, as LeanLookup.
  [[nodiscard]] Status LookupBody(const engine::Peer& peer, const v1::LookupRequest& request,
                                  v1::LookupResponse* response,
                                  std::vector<std::shared_ptr<const store::ArtifactRecord>>* records = nullptr);
  // Unary calls whose whole work is `body(peer)`: admission, header check, body.
  template <typename Request, typename Body>
  grpc::ServerUnaryReactor* Answer(grpc::CallbackServerContext* context, auth::Operation op,
                                   const Request& request, Body&& body);

  engine::Engine& engine_;
  const CallAuthenticator& auth_;
  const ServiceLimits limits_;
  const StatsSource stats_;
  const std::function<void()> stop_;
  PeerLimiter peer_limiter_;
  std::atomic<std::uint64_t> peer_rejections_{0};
};

}  // namespace qdcache::daemon
