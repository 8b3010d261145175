#include "daemon/server.h"

#include <grpcpp/ext/health_check_service_server_builder_option.h>
#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>
#include <grpcpp/resource_quota.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <mutex>
#include <utility>

#include "backends/cuda_libraries.h"
#include "common/units.h"
#include "common/paths.h"
#include "daemon/activity_interceptor.h"
#include "daemon/idle_monitor.h"
#include "daemon/lean_server.h"
#include "lean/protocol.h"
#include "compiler/compiler.h"
#include "compiler/worker_pool.h"
#include "compiler/worker_scratch.h"
#include "daemon/call_auth.h"
#include "engine/engine.h"
#include "daemon/fleet_setup.h"
#include "daemon/remote_setup.h"
#include "daemon/security_setup.h"
#include "daemon/service.h"
#include "daemon/socket_activation.h"
#include "daemon/socket_path.h"
#include "daemon/unix_acceptor.h"
#include "daemon/version.h"
#include "metrics/daemon_metrics.h"
#include "store/artifact_store.h"

namespace qdcache::daemon {
namespace {

constexpr auto kDrainDeadline = std::chrono::seconds(60);

// Threads of gRPC's sync server. Reflection is gRPC 1.51's only sync service
// here and each open ServerReflectionInfo stream holds one of them; past the
// bound a new stream is refused RESOURCE_EXHAUSTED. The callback services
// (qdcache.v1, health) do not use these threads and are not limited by it.
constexpr int kMaxSyncServerThreads = 64;

// Health service name that reports the remote cache tier: NOT_SERVING while
// its circuit breaker is open. The daemon itself ("") stays SERVING.
constexpr const char* kRemoteHealthService = "qdcache.remote";
// The lean transport's calls count under the gRPC methods' names: one
// series per method, whichever transport carried it.
const char* LeanMethodName(std::uint8_t method) {
  return method == lean::kCompile ? "/qdcache.v1.CompileCache/Compile" : "/qdcache.v1.CompileCache/Lookup";
}

// `metrics` may be null (no --metrics-listen); it must outlive the engine.
engine::EngineConfig MakeEngineConfig(const DaemonOptions& options, metrics::DaemonMetrics* metrics,
                                      const SharedEntrySigning& signing, remote::RemoteTier* remote) {
  engine::EngineConfig c;
  c.import_signatures = signing.policy;
  c.fleet = MakeFleetLeases(options, remote);
  c.fleet_wait = FleetWaitLimit(options);
  c.workers = options.workers;
  c.max_queue = options.max_queue;
  c.failure_memory = options.failure_memory;
  c.limits.max_ir_bytes = options.max_ir_bytes;
  c.compile_timeout = options.compile_timeout;
  c.failure_budget = engine::FailureBudgetOptions{options.peer_failure_burst, options.peer_failure_refill};
  c.daemon_version = kVersion;
  c.alias_policy_floor = options.alias_policy_floor == "strict"   ? v1::ALIAS_POLICY_STRICT
                         : options.alias_policy_floor == "rebind" ? v1::ALIAS_POLICY_REBIND
                                                                  : v1::ALIAS_POLICY_OFF;
  if (metrics != nullptr) {
    c.on_compile = [metrics](const engine::CompileEvent& e) { metrics->compiles().Observe(e.target, e.seconds, e.ok); };
    c.on_alias_event = [metrics](std::string_view ns, engine::AliasEvent e) {
      metrics->compiles().CountAliasEvent(ns, e == engine::AliasEvent::kConflict);
    };
  }
  return c;
}

// Sanitizer runtimes reserve terabytes of address space: no RLIMIT_AS then.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif

Expected<std::unique_ptr<compiler::WorkerPool>> StartWorkers(const DaemonOptions& options) {
  compiler::WorkerPoolConfig c;
  c.spawn.executable = "/proc/self/exe";  // this very binary, even if replaced on disk since
  // Inside the store directory, which this daemon holds locked: scratch left
  // by a daemon that was killed is reaped here, and none goes to /tmp.
  c.spawn.scratch_root = options.store_dir + "/" + store::kScratchSubdirectory;
  QDC_ASSIGN_OR_RETURN(const int reaped, compiler::PrepareScratchRoot(c.spawn.scratch_root));
  if (reaped > 0) {
    spdlog::info("removed {} compile worker scratch director{} left by a daemon that is gone", reaped,
                 reaped == 1 ? "y" : "ies");
  }
  if (!options.libdevice_path.empty()) c.spawn.args.push_back("--libdevice=" + options.libdevice_path);
  if (!options.device_libs_dir.empty()) c.spawn.args.push_back("--device-libs=" + options.device_libs_dir);
  if (!options.cuda_library_dir.empty()) c.spawn.args.push_back("--cuda-libraries=" + options.cuda_library_dir);
  // The daemon answers Targets itself (what it can compile for): from the
  // same libraries as its workers.
  compiler::SetCudaLibraryDirectory(options.cuda_library_dir);
  c.spawn.memory_limit_bytes = kSanitized ? 0 : options.worker_memory_bytes;
  // A worker's answer becomes a response: keep room for its other fields.
  constexpr std::uint64_t kResponseOverhead = 1 << 20;
  c.spawn.max_answer_bytes =
      options.max_message_bytes - std::min(options.max_message_bytes / 2, kResponseOverhead);
  if (kSanitized && options.worker_memory_bytes != 0) {
    spdlog::warn("sanitizer build: compile workers run without a memory limit");
  }
  c.compile_workers = options.workers;
  c.key_workers = options.key_workers;
  c.compile_timeout = options.compile_timeout;
  c.max_respawns_per_second = options.worker_respawns;
  return compiler::WorkerPool::Start(std::move(c));
}

class ServerImpl final : public Server {
 public:
  ServerImpl(DaemonOptions options, SecuritySetup security, StoreWithRemote store,
             std::unique_ptr<compiler::WorkerPool> workers, int activation_fd,
             std::function<void()> on_idle)
      : options_(std::move(options)),
        activation_fd_(activation_fd),
        socket_path_(activation_fd >= 0 ? BoundUnixPath(activation_fd) : options_.socket_path),
        on_idle_(std::move(on_idle)),
        store_(std::move(store.store)),
        remote_(store.remote),
        local_store_(store.local),
        workers_(std::move(workers)),
        metrics_(options_.metrics_listen.empty() ? nullptr : std::make_unique<metrics::DaemonMetrics>()),
        engine_(*workers_, *store_, MakeEngineConfig(options_, metrics_.get(), security.signing, store.remote)),
        security_(std::move(security)),
        call_auth_(peers_, security_.authenticator, security_.tcp_client_certs),
        service_(engine_, call_auth_,
                 ServiceLimits{options_.max_batch, options_.max_peer_requests, options_.max_message_bytes},
                 StatsSource{[this] { return CurrentParts(); },
                             [this] {
                               engine_.ResetStats();
                               if (remote_ != nullptr) remote_->ResetStats();
                             }},
                 // A Shutdown call takes the idle exit's way out (RunDaemonMain).
                 on_idle_ ? std::function<void()>([this] { on_idle_(); }) : std::function<void()>()) {
    if (remote_ != nullptr) remote_->SetHealthListener([this](bool) { ReportRemoteHealth(); });
  }

  ~ServerImpl() override {
    Shutdown();
    if (activation_fd_ >= 0 && !adopted_) ::close(activation_fd_);
  }

  Status Listen() {
    // First, so that a metrics address in use fails the start before the
    // daemon takes the socket.
    if (metrics_) {
      Expected<std::unique_ptr<metrics::MetricsEndpoint>> endpoint =
          metrics_->Serve(options_.metrics_listen, [this] { return service_.CurrentStats(); });
      if (!endpoint.ok()) return endpoint.status().WithContext("--metrics-listen");
      metrics_endpoint_ = std::move(endpoint).value();
    }
    if (activation_fd_ >= 0) {
      QDC_ASSIGN_OR_RETURN(acceptor_, UnixAcceptor::Adopt(activation_fd_));
      adopted_ = true;
      if (!options_.socket_group.empty()) {
        spdlog::info("socket activation: the socket's group and mode are the service manager's "
                     "(SocketGroup=, SocketMode=); --socket-group is not applied");
      }
    } else {
      QDC_RETURN_IF_ERROR(PrepareSocketPath(options_.socket_path));
      QDC_ASSIGN_OR_RETURN(acceptor_, UnixAcceptor::Listen(options_.socket_path, 0660, security_.socket_group));
    }
    grpc::EnableDefaultHealthCheckService(true);
    // grpc.reflection.v1alpha.ServerReflection: the schema, for grpcurl and
    // the like. Its calls pass the same transport checks as any other
    // (docs/protocol.md, "Reflection").
    grpc::reflection::InitProtoReflectionServerBuilderPlugin();
    grpc::ServerBuilder builder;
    grpc::ResourceQuota quota("qdcached");
    quota.SetMaxThreads(kMaxSyncServerThreads);
    builder.SetResourceQuota(quota);
    const int max_message = static_cast<int>(std::min<std::uint64_t>(options_.max_message_bytes, INT32_MAX));
    builder.SetMaxReceiveMessageSize(max_message);
    builder.SetMaxSendMessageSize(max_message);
    int tcp_port = 0;
    if (!options_.listen.empty()) {
      builder.AddListeningPort(options_.listen, security_.tcp_credentials, &tcp_port);
    }
    builder.RegisterService(&service_);
    std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> interceptors;
    if (metrics_) interceptors.push_back(metrics_->requests().InterceptorFactory());
    if (options_.idle_exit.count() > 0 && on_idle_) {
      idle_ = std::make_unique<IdleMonitor>(options_.idle_exit, [this](IdleMonitor::Clock::duration) {
        spdlog::info("idle for {}s, exiting", options_.idle_exit.count());
        on_idle_();
      });
      interceptors.push_back(std::make_unique<ActivityInterceptorFactory>(*idle_));
    }
    if (!interceptors.empty()) builder.experimental().SetInterceptorCreators(std::move(interceptors));
    server_ = builder.BuildAndStart();
    if (!server_ || (!options_.listen.empty() && tcp_port == 0)) {
      if (server_) server_->Shutdown();
      server_.reset();
      idle_.reset();
      acceptor_.reset();  // removes the socket it bound
      metrics_endpoint_.reset();
      return Unavailable(options_.listen.empty() ? "cannot start the gRPC server"
                                                 : "cannot listen on " + options_.listen);
    }
    lean_ = std::make_unique<LeanServer>(LeanHooksFor(), LeanLimits{.max_body = options_.max_message_bytes,
                                                                       .answer_memo_bytes = options_.answer_cache_bytes});
    acceptor_->Start(server_.get(), &peers_, lean_.get());
    server_->GetHealthCheckService()->SetServingStatus(true);
    if (remote_ != nullptr) {
      std::lock_guard lock(health_mu_);
      health_ = server_->GetHealthCheckService();
    }
    ReportRemoteHealth();
    spdlog::info("qdcached {} serving unix:{}{} store={} cap={} workers={}", kVersion, socket_path_,
                 activation_fd_ >= 0               ? " (socket activation)"
                 : options_.socket_group.empty() ? ""
                                                 : " (group " + options_.socket_group + ")",
                 options_.store_dir, options_.max_bytes == 0 ? "none" : FormatByteSize(options_.max_bytes),
                 options_.workers);
    if (idle_) spdlog::info("exiting after {}s without requests (--idle-exit)", options_.idle_exit.count());
    if (!options_.listen.empty()) {
      // With port 0 the kernel picks the port; this line is how to learn it.
      const std::string host = options_.listen.substr(0, options_.listen.rfind(':'));
      spdlog::info("listening on tcp {}:{} ({})", host, tcp_port, security_.tcp_summary);
    }
    // With port 0 this line is how to learn the port, as for TCP above.
    if (metrics_endpoint_) spdlog::info("metrics on {} (unauthenticated)", metrics_endpoint_->url());
    return Status::Ok();
  }

  void Shutdown() override {
    std::lock_guard lock(shutdown_mu_);
    if (stopped_) return;
    stopped_ = true;
    if (idle_) idle_->Stop();  // draining is not idleness
    if (acceptor_) {
      acceptor_->Stop();  // no new connections
      // Remove the socket now: after a long drain the path might belong to a
      // successor daemon (RemoveSocket checks that it is still ours anyway).
      acceptor_->RemoveSocket();
    }
    // Both transports drain at once, up to the same deadline.
    const auto lean_drain_until = std::chrono::steady_clock::now() + kDrainDeadline;
    if (lean_) lean_->BeginStop();  // lean connections end once their request is answered
    {
      std::lock_guard lock(health_mu_);
      health_ = nullptr;
    }
    // Compiles parked for another daemon's lease compile here now, within
    // the drain deadline.
    engine_.StopFleetWaits();
    if (server_) {
      server_->GetHealthCheckService()->SetServingStatus(false);
      spdlog::info("draining in-flight requests");
      // Stops accepting, then waits for in-flight calls up to the deadline
      // (after it, gRPC cancels them). Compiles still running finish their
      // calls through Drain(); Wait() returns once every call has finished.
      server_->Shutdown(std::chrono::system_clock::now() + kDrainDeadline);
    }
    // Lean Compiles still running at the deadline are cancelled, as gRPC's are.
    if (lean_) lean_->Stop(lean_drain_until);
    engine_.Drain();
    if (server_) server_->Wait();
    spdlog::info("stopped");
  }

  const std::string& toolchain_fingerprint() const override { return engine_.toolchain_fingerprint(); }
  const std::string& unix_socket_path() const override { return socket_path_; }

  Status CheckHealth() override {
    if (acceptor_ && !acceptor_->accepting()) return Unavailable("the unix socket no longer accepts connections");
    // Any answer will do, a miss included: only a store that fails to read is unhealthy.
    // The local store only: the watchdog must not wait on (or count against) a remote tier.
    Expected<std::optional<store::ArtifactKey>> probe =
        local_store_->GetAlias(store::AliasKey{"health", "", "", ""});
    if (!probe.ok()) return probe.status().WithContext("store read");
    return Status::Ok();
  }

 private:
  // What serving a Lookup answer again counts, when every item was a hit
  // (served from records[i]); null otherwise.
  static std::shared_ptr<const LeanReplay> ReplayOf(
      const v1::LookupResponse& response,
      const std::vector<std::shared_ptr<const store::ArtifactRecord>>& records) {
    if (response.results_size() == 0 || records.size() != static_cast<std::size_t>(response.results_size())) {
      return nullptr;
    }
    auto replay = std::make_shared<LeanReplay>();
    replay->artifact_keys.reserve(records.size());
    replay->compile_micros.reserve(records.size());
    for (int i = 0; i < response.results_size(); ++i) {
      const auto& record = records[static_cast<std::size_t>(i)];
      if (response.results(i).status() != v1::CACHE_STATUS_ALIAS_HIT || record == nullptr) return nullptr;
      replay->artifact_keys.push_back(record->key);
      replay->compile_micros.push_back(record->compile_micros);
    }
    return replay;
  }

  // The lean transport's calls: answered by the service, counted by the
  // idle monitor and the request metrics like gRPC's.
  LeanHooks LeanHooksFor() {
    LeanHooks hooks;
    hooks.lookup = [this](std::uint32_t uid, const v1::LookupRequest& request, v1::LookupResponse* response,
                          LeanPayloads* payloads) {
      // Hits' payloads go out from the records the store holds, uncopied.
      auto records = std::make_shared<std::vector<std::shared_ptr<const store::ArtifactRecord>>>();
      Status status = service_.LeanLookup(uid, request, response, records.get());
      payloads->views.reserve(records->size());
      for (const auto& record : *records) {
        payloads->views.push_back(record != nullptr ? std::string_view(record->payload) : std::string_view());
      }
      if (status.ok() && payloads->want_replay) payloads->replay = ReplayOf(*response, *records);
      payloads->owner = std::move(records);
      return status;
    };
    hooks.generation = [this] { return engine_.LookupGeneration(); };
    hooks.replay = [this](std::uint32_t uid, std::string_view client, const LeanReplay& replay) {
      return service_.ReplayLeanLookup(uid, client, replay);
    };
    hooks.compile = [this](std::uint32_t uid, const v1::CompileRequest& request, v1::CompileResponse* response,
                           std::function<void()> done, std::function<void()>* cancel) {
      return service_.LeanCompile(uid, request, response, std::move(done), cancel);
    };
    IdleMonitor* idle = idle_.get();
    metrics::DaemonMetrics* metrics = metrics_.get();
    if (idle != nullptr || metrics != nullptr) {
      hooks.started = [idle, metrics] {
        if (idle != nullptr) idle->Begin();
        if (metrics != nullptr) metrics->requests().Started();
      };
      hooks.finished = [idle, metrics](std::uint8_t method, Code code, double seconds) {
        if (metrics != nullptr) {
          metrics->requests().Finished(LeanMethodName(method), static_cast<grpc::StatusCode>(code), seconds);
        }
        if (idle != nullptr) idle->End();
      };
    }
    return hooks;
  }

  // Every component's counters but the service's own.
  StatsParts CurrentParts() {
    StatsParts p;
    p.engine = engine_.Stats();
    p.store = store_->Stats();
    p.max_bytes = options_.max_bytes;
    p.workers = workers_->stats();
    if (remote_ != nullptr) p.remote = StatsParts::Remote{remote_->Stats(), remote_->options()};
    p.signing = security_.signing;
    return p;
  }

  // Sets kRemoteHealthService from the breaker's state now (not from the
  // listener's argument, which may be older than a concurrent report).
  void ReportRemoteHealth() {
    std::lock_guard lock(health_mu_);
    if (health_ == nullptr || remote_ == nullptr) return;
    health_->SetServingStatus(kRemoteHealthService, remote_->Stats().healthy);
  }

  const DaemonOptions options_;
  const int activation_fd_;  // -1: no socket activation
  bool adopted_ = false;     // activation_fd_ belongs to an acceptor (which closes it)
  const std::string socket_path_;
  const std::function<void()> on_idle_;
  std::unique_ptr<store::ArtifactStore> store_;
  remote::RemoteTier* const remote_;  // inside store_; null without --remote
  store::ArtifactStore* const local_store_;  // inside store_: the local store alone
  std::unique_ptr<compiler::WorkerPool> workers_;
  // Before engine_ and server_, which report to it; null without --metrics-listen.
  std::unique_ptr<metrics::DaemonMetrics> metrics_;
  engine::Engine engine_;
  PeerRegistry peers_;
  const SecuritySetup security_;
  CallAuthenticator call_auth_;
  CompileCacheService service_;
  // Scrapes read service_ (and so engine_): declared after them, destroyed before.
  std::unique_ptr<metrics::MetricsEndpoint> metrics_endpoint_;
  std::unique_ptr<UnixAcceptor> acceptor_;
  std::unique_ptr<IdleMonitor> idle_;  // outlives server_ and lean_: their calls report to it
  std::unique_ptr<LeanServer> lean_;
  std::unique_ptr<grpc::Server> server_;
  std::mutex shutdown_mu_;
  bool stopped_ = false;  // guarded by shutdown_mu_
  std::mutex health_mu_;  // never held while calling the store
  grpc::HealthCheckServiceInterface* health_ = nullptr;  // guarded by health_mu_; null: not serving
};

store::StoreOptions MakeStoreOptions(const DaemonOptions& options) {
  store::StoreOptions s;
  s.path = options.store_dir;
  s.sync_writes = options.sync_writes;
  s.max_bytes = options.max_bytes;
  s.memory_cache_bytes = options.memory_cache_bytes;
  return s;
}

}  // namespace

Expected<std::unique_ptr<Server>> Server::Start(const DaemonOptions& options, int activation_fd,
                                                std::function<void()> on_idle) {
  // Owns activation_fd until the ServerImpl does.
  struct FdGuard {
    int fd;
    ~FdGuard() {
      if (fd >= 0) ::close(fd);
    }
  } guard{activation_fd};
  QDC_ASSIGN_OR_RETURN(SecuritySetup security, LoadSecurity(options));
  // Before anything is created: a second daemon on a busy socket or a store
  // in use fails here and leaves no directory, worker or file behind.
  if (guard.fd < 0) QDC_RETURN_IF_ERROR(CheckSocketPathFree(options.socket_path));
  QDC_RETURN_IF_ERROR(store::CheckStoreNotInUse(options.store_dir));
  if (InPrivateTmpDir(options.socket_path) || InPrivateTmpDir(options.store_dir)) {
    QDC_RETURN_IF_ERROR(CheckPrivateDir(PrivateTmpDir(), /*create=*/true));
  }
  Expected<std::unique_ptr<store::ArtifactStore>> store =
      store::ArtifactStore::Open(MakeStoreOptions(options));
  if (!store.ok()) return store.status().WithContext("opening store " + options.store_dir);
  Expected<StoreWithRemote> tiered = AddRemoteTier(options, security.signing, std::move(store).value());
  if (!tiered.ok()) return tiered.status();
  Expected<std::unique_ptr<compiler::WorkerPool>> workers = StartWorkers(options);
  if (!workers.ok()) return workers.status();
  const compiler::ToolchainInfo tc = (*workers)->toolchain();
  auto server = std::make_unique<ServerImpl>(options, std::move(security), std::move(tiered).value(),
                                             std::move(workers).value(), std::exchange(guard.fd, -1),
                                             std::move(on_idle));
  spdlog::info("toolchain {}: LLVM {}, CUDA {}, PTX ISA {}, libdevice {}, glibc {}, libNVVM {}, NVRTC {}, "
               "CUDA headers {}, cudadevrt {}, compiler-rt builtins {}, ROCm device libraries {}",
               server->toolchain_fingerprint(), tc.llvm_version, tc.cuda_version, tc.ptx_isa_version,
               tc.libdevice_digest.substr(0, 16), tc.libc_version, tc.nvvm_version, tc.nvrtc_version,
               tc.cuda_headers_digest.substr(0, 16), tc.cudadevrt_digest.substr(0, 16),
               tc.compiler_rt_builtins_digest.substr(0, 16), tc.device_libs_digest.substr(0, 16));
  if (!tc.ptx_sms.empty()) {
    std::string reach;
    for (const std::string& sm : tc.ptx_sms) reach += (reach.empty() ? "" : " ") + sm;
    spdlog::info("CUDA SMs: LLVM IR to {} .. {}; PTX, NVVM IR and CUDA C++: {}", tc.cuda_sms.empty() ? "-" : tc.cuda_sms.front(),
                 tc.cuda_sms.empty() ? "-" : tc.cuda_sms.back(), reach);
  }
  spdlog::info("compile workers: {} + {} for digests, time limit {}s, memory limit {}", options.workers,
               options.key_workers, options.compile_timeout.count(),
               options.worker_memory_bytes == 0 || kSanitized
                   ? std::string("none")
                   : std::to_string(options.worker_memory_bytes >> 20) + " MiB");
  QDC_RETURN_IF_ERROR(server->Listen());
  return std::unique_ptr<Server>(std::move(server));
}

}  // namespace qdcache::daemon
