#include "daemon/service.h"

#include "daemon/service_status.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include "backends/target_catalogue.h"
#include "daemon/request_log.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <system_error>
#include <thread>
#include <vector>
#include <memory>
#include <string>

namespace qdcache::daemon {
namespace {

// Lookup batches at least this large are answered by several threads.
constexpr int kParallelLookupFrom = 256;

// A Compile call: finishes when every item has its answer; a cancelled
// call (client gone, deadline passed) releases its items' compiles.
class CompileReactor final : public grpc::ServerUnaryReactor {
 public:
  explicit CompileReactor(engine::Engine& engine)
      : engine_(engine), call_(std::make_shared<engine::Engine::Call>()) {
    constructed_.store(true, std::memory_order_release);
  }
  void OnCancel() override {
    // gRPC hands the reactor to its cancelling thread inside libgrpc, which
    // ThreadSanitizer does not see; this acquire makes the hand-over visible.
    (void)constructed_.load(std::memory_order_acquire);
    engine_.Cancel(call_);
  }
  void OnDone() override { delete this; }
  [[nodiscard]] const std::shared_ptr<engine::Engine::Call>& call() const { return call_; }

 private:
  engine::Engine& engine_;
  const std::shared_ptr<engine::Engine::Call> call_;
  std::atomic<bool> constructed_{false};
};

// What the engine needs to know of an identity.
engine::Peer PeerOf(const auth::Identity& who) { return engine::Peer{who.tenant, auth::Authenticator::MayWrite(who)}; }

// Differences between two explanations, by component name.
std::vector<std::string> Differing(const v1::Explanation& a, const v1::Explanation& b) {
  std::map<std::string, std::pair<std::string, std::string>> by_name;
  for (const v1::KeyComponent& c : a.components()) by_name[c.name()].first = c.value();
  for (const v1::KeyComponent& c : b.components()) by_name[c.name()].second = c.value();
  std::vector<std::string> out;
  for (const auto& [name, values] : by_name) {
    if (values.first != values.second) out.push_back(name);
  }
  return out;
}

}  // namespace

CompileCacheService::CompileCacheService(engine::Engine& engine, const CallAuthenticator& auth,
                                         ServiceLimits limits, StatsSource stats,
                                         std::function<void()> stop)
    : engine_(engine),
      auth_(auth),
      limits_(limits),
      stats_(std::move(stats)),
      stop_(std::move(stop)),
      peer_limiter_(limits.max_peer_requests) {}

Expected<CompileCacheService::Admitted> CompileCacheService::Admit(grpc::CallbackServerContext& context,
                                                                   auth::Operation op) {
  return AdmitIdentity(auth_.Check(context, op));
}

Expected<CompileCacheService::Admitted> CompileCacheService::AdmitIdentity(Expected<auth::Identity> identity) {
  QDC_ASSIGN_OR_RETURN(auth::Identity who, std::move(identity));
  Expected<PeerLimiter::Slot> slot = peer_limiter_.Acquire(who.tenant);
  if (!slot.ok()) {
    ++peer_rejections_;
    return slot.status();
  }
  return Admitted{PeerOf(who), std::move(slot).value(), who.role};
}

// Answers a unary call whose whole work is `body` (after admission and the
// header check): body returns the Status to finish with. Admission comes
// first, so an unauthenticated peer learns nothing about its request.
template <typename Request, typename Body>
grpc::ServerUnaryReactor* CompileCacheService::Answer(grpc::CallbackServerContext* context,
                                                      auth::Operation op, const Request& request,
                                                      Body&& body) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  Expected<Admitted> admitted = Admit(*context, op);
  grpc::Status status = ToGrpc(admitted.ok() ? CheckHeader(request.header()) : admitted.status());
  if (status.ok()) status = ToGrpc(body(admitted->peer));
  reactor->Finish(status);
  return reactor;
}

grpc::ServerUnaryReactor* CompileCacheService::Compile(grpc::CallbackServerContext* context,
                                                       const v1::CompileRequest* request,
                                                       v1::CompileResponse* response) {
  auto* reactor = new CompileReactor(engine_);
  Expected<Admitted> admitted = Admit(*context, auth::Operation::kCompile);
  grpc::Status status = ToGrpc(admitted.ok() ? CheckHeader(request->header()) : admitted.status());
  if (status.ok()) status = ToGrpc(CheckBatch(request->kernels_size(), limits_.max_batch, "compile"));
  if (!status.ok()) {
    reactor->Finish(status);
    return reactor;
  }
  CompileBody(std::move(admitted).value(), *request, response, reactor->call(),
              [reactor] { reactor->Finish(grpc::Status::OK); });
  return reactor;
}

Status CompileCacheService::LeanCompile(std::uint32_t uid, const v1::CompileRequest& request,
                                        v1::CompileResponse* response, std::function<void()> done,
                                        std::function<void()>* cancel) {
  QDC_ASSIGN_OR_RETURN(Admitted admitted, AdmitIdentity(auth_.CheckUnixPeer(uid, auth::Operation::kCompile)));
  QDC_RETURN_IF_ERROR(CheckHeader(request.header()));
  QDC_RETURN_IF_ERROR(CheckBatch(request.kernels_size(), limits_.max_batch, "compile"));
  auto call = std::make_shared<engine::Engine::Call>();
  *cancel = [this, call] { engine_.Cancel(call); };
  // The connection's own thread waits for the answer anyway: one item is
  // keyed on it, without a hand-off to a keying thread.
  CompileBody(std::move(admitted), request, response, call, std::move(done),
              /*caller_may_wait=*/request.kernels_size() == 1);
  return Status::Ok();
}

void CompileCacheService::CompileBody(Admitted admitted, const v1::CompileRequest& request,
                                      v1::CompileResponse* response,
                                      const std::shared_ptr<engine::Engine::Call>& call,
                                      std::function<void()> finish, bool caller_may_wait) {
  const int n = request.kernels_size();
  if (n == 0) {
    finish();
    return;
  }
  for (int i = 0; i < n; ++i) response->add_results();
  // Shared by the items' callbacks; the last one answers and frees the slot.
  struct Pending {
    std::atomic<int> remaining;
    PeerLimiter::Slot slot;
    std::function<void()> finish;
  };
  auto pending = std::make_shared<Pending>();
  pending->remaining = n;
  pending->slot = std::move(admitted.slot);
  pending->finish = std::move(finish);
  const engine::Peer peer = admitted.peer;
  // Named only for a log that shows it.
  const std::string who = spdlog::should_log(spdlog::level::debug) ? Who(peer, request.header()) : std::string();
  spdlog::debug("Compile: {} kernel{} from {}", n, n == 1 ? "" : "s", who);
  for (int i = 0; i < n; ++i) {
    engine_.Compile(request.kernels(i), peer, request.include_ptx(), call,
                    [response, i, pending, who](v1::CompileResult result) {
                      LogHit(result, who);
                      *response->mutable_results(i) = std::move(result);
                      if (pending->remaining.fetch_sub(1) == 1) {
                        pending->slot.reset();
                        pending->finish();
                      }
                    },
                    caller_may_wait);
  }
}

grpc::ServerUnaryReactor* CompileCacheService::Lookup(grpc::CallbackServerContext* context,
                                                      const v1::LookupRequest* request,
                                                      v1::LookupResponse* response) {
  return Answer(context, auth::Operation::kLookup, *request,
                [&](const engine::Peer& peer) { return LookupBody(peer, *request, response); });
}

Status CompileCacheService::LookupBody(const engine::Peer& peer, const v1::LookupRequest& request,
                                       v1::LookupResponse* response,
                                       std::vector<std::shared_ptr<const store::ArtifactRecord>>* records) {
  QDC_RETURN_IF_ERROR(CheckBatch(request.queries_size(), limits_.max_batch, "lookup"));
  const std::string who = spdlog::should_log(spdlog::level::debug) ? Who(peer, request.header()) : std::string();
  const int n = request.queries_size();
  spdlog::debug("Lookup: {} fast key{} from {}", n, n == 1 ? "" : "s", who);
  for (int i = 0; i < n; ++i) response->add_results();
  if (records != nullptr) records->assign(static_cast<std::size_t>(n), nullptr);
  // A warm start's batch (thousands of keys) is answered by several threads:
  // its client waits idle meanwhile. Small batches stay on this thread.
  const int threads =
      n < kParallelLookupFrom ? 1 : static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u, 4u));
  auto stripe = [&](int first) {
    for (int i = first; i < n; i += threads) {
      engine_.LookupInto(request.queries(i), peer, request.include_ptx(), response->mutable_results(i),
                         records != nullptr ? &(*records)[static_cast<std::size_t>(i)] : nullptr);
    }
  };
  std::vector<std::thread> helpers;
  int started = 1;
  try {
    for (; started < threads; ++started) helpers.emplace_back(stripe, started);
  } catch (const std::system_error&) {  // out of threads: this one does the rest
  }
  for (int t = started; t < threads; ++t) stripe(t);
  stripe(0);
  for (std::thread& helper : helpers) helper.join();
  for (const v1::CompileResult& result : response->results()) LogHit(result, who);
  return Status::Ok();
}

Status CompileCacheService::LeanLookup(std::uint32_t uid, const v1::LookupRequest& request,
                                       v1::LookupResponse* response,
                                       std::vector<std::shared_ptr<const store::ArtifactRecord>>* records) {
  QDC_ASSIGN_OR_RETURN(Admitted admitted, AdmitIdentity(auth_.CheckUnixPeer(uid, auth::Operation::kLookup)));
  QDC_RETURN_IF_ERROR(CheckHeader(request.header()));
  return LookupBody(admitted.peer, request, response, records);
}

Status CompileCacheService::ReplayLeanLookup(std::uint32_t uid, std::string_view client, const LeanReplay& replay) {
  QDC_ASSIGN_OR_RETURN(Admitted admitted, AdmitIdentity(auth_.CheckUnixPeer(uid, auth::Operation::kLookup)));
  const int n = static_cast<int>(replay.artifact_keys.size());
  QDC_RETURN_IF_ERROR(CheckBatch(n, limits_.max_batch, "lookup"));
  if (spdlog::should_log(spdlog::level::debug)) {
    v1::RequestHeader header;
    header.set_client(std::string(client));
    spdlog::debug("Lookup: {} fast key{} from {}, answered as before", n, n == 1 ? "" : "s",
                  Who(admitted.peer, header));
  }
  engine_.ReplayAliasHits(replay.artifact_keys, replay.compile_micros);
  return Status::Ok();
}

v1::Stats CompileCacheService::CurrentStats() {
  StatsParts parts = stats_.parts();
  parts.peer_rejections = peer_rejections_;
  return StatsReport(parts);
}

grpc::ServerUnaryReactor* CompileCacheService::GetStats(grpc::CallbackServerContext* context,
                                                        const v1::GetStatsRequest* request,
                                                        v1::GetStatsResponse* response) {
  const auth::Operation op = request->reset() ? auth::Operation::kResetStats : auth::Operation::kGetStats;
  return Answer(context, op, *request, [&](const engine::Peer&) -> Status {
    *response->mutable_stats() = CurrentStats();
    if (request->reset()) {
      stats_.reset();
      peer_rejections_ = 0;
    }
    return Status::Ok();
  });
}


grpc::ServerUnaryReactor* CompileCacheService::Explain(grpc::CallbackServerContext* context,
                                                       const v1::ExplainRequest* request,
                                                       v1::ExplainResponse* response) {
  return Answer(context, auth::Operation::kExplain, *request, [&](const engine::Peer& peer) -> Status {
    if (request->kernels_size() < 1 || request->kernels_size() > 2) {
      return InvalidArgument("explain takes one or two descriptors");
    }
    for (const v1::KernelDescriptor& d : request->kernels()) {
      *response->add_explanations() = engine_.Explain(d, peer);
    }
    if (response->explanations_size() == 2) {
      for (std::string& name : Differing(response->explanations(0), response->explanations(1))) {
        response->add_differing(std::move(name));
      }
    }
    return Status::Ok();
  });
}

// Reads stored records (and the caller's alias): the role that may inspect.
grpc::ServerUnaryReactor* CompileCacheService::ExplainStored(grpc::CallbackServerContext* context,
                                                             const v1::ExplainStoredRequest* request,
                                                             v1::ExplainStoredResponse* response) {
  return Answer(context, auth::Operation::kInspect, *request, [&](const engine::Peer& peer) -> Status {
    QDC_ASSIGN_OR_RETURN(*response, engine_.ExplainStored(*request, peer.tenant));
    return Status::Ok();
  });
}

grpc::ServerUnaryReactor* CompileCacheService::List(grpc::CallbackServerContext* context,
                                                    const v1::ListRequest* request,
                                                    v1::ListResponse* response) {
  return Answer(context, auth::Operation::kList, *request, [&](const engine::Peer& peer) -> Status {
    QDC_ASSIGN_OR_RETURN(*response, engine_.List(*request, peer.tenant));
    return Status::Ok();
  });
}

grpc::ServerUnaryReactor* CompileCacheService::Inspect(grpc::CallbackServerContext* context,
                                                       const v1::InspectRequest* request,
                                                       v1::InspectResponse* response) {
  return Answer(context, auth::Operation::kInspect, *request, [&](const engine::Peer&) -> Status {
    QDC_ASSIGN_OR_RETURN(*response->mutable_artifact(),
                         engine_.Inspect(request->artifact_key(), request->include_ptx()));
    return Status::Ok();
  });
}

grpc::ServerUnaryReactor* CompileCacheService::Evict(grpc::CallbackServerContext* context,
                                                     const v1::EvictRequest* request,
                                                     v1::EvictResponse* response) {
  return Answer(context, auth::Operation::kEvict, *request, [&](const engine::Peer&) -> Status {
    QDC_ASSIGN_OR_RETURN(*response, engine_.Evict(*request));
    return Status::Ok();
  });
}

grpc::ServerUnaryReactor* CompileCacheService::Verify(grpc::CallbackServerContext* context,
                                                      const v1::VerifyRequest* request,
                                                      v1::VerifyResponse* response) {
  return Answer(context, auth::Operation::kVerify, *request, [&](const engine::Peer&) -> Status {
    QDC_ASSIGN_OR_RETURN(*response, engine_.Verify());
    return Status::Ok();
  });
}

grpc::ServerUnaryReactor* CompileCacheService::Shutdown(grpc::CallbackServerContext* context,
                                                        const v1::ShutdownRequest* request,
                                                        v1::ShutdownResponse* response) {
  bool asked = false;
  grpc::ServerUnaryReactor* reactor =
      Answer(context, auth::Operation::kShutdown, *request, [&](const engine::Peer& peer) -> Status {
        if (!stop_) return Status(Code::kUnimplemented, "this server cannot be stopped by a call");
        spdlog::info("shutdown asked by {}", Who(peer, request->header()));
        response->set_pid(static_cast<std::uint32_t>(::getpid()));
        asked = true;
        return Status::Ok();
      });
  // After the answer is queued (`response` may be gone already): the drain
  // that follows lets it go out.
  if (asked) stop_();
  return reactor;
}

grpc::ServerUnaryReactor* CompileCacheService::Targets(grpc::CallbackServerContext* context,
                                                       const v1::TargetsRequest* request,
                                                       v1::TargetsResponse* response) {
  return Answer(context, auth::Operation::kTargets, *request, [&](const engine::Peer&) -> Status {
    for (const compiler::TargetFamilyInfo& info : compiler::SupportedTargets()) {
      v1::TargetFamily* family = response->add_families();
      family->set_family(info.family);
      family->set_syntax(info.syntax);
      for (const std::string& p : info.processors) family->add_processors(p);
      for (const std::string& f : info.features) family->add_features(f);
      family->set_available(info.available);
    }
    return Status::Ok();
  });
}

}  // namespace qdcache::daemon
