// The transport-free core of the daemon: keys, cache lookups, single-flight
// compiles and statistics. The gRPC service is a thin adapter over it.
//
// Threads: every public method may be called concurrently. Compiles run on an
// internal pool sized by EngineConfig::workers; hits are answered on the
// caller's thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "compiler/compiler.h"
#include "daemon/descriptor.h"
#include "daemon/thread_pool.h"
#include "qdcache/v1/qdcache.pb.h"
#include "store/artifact_store.h"

namespace qdcache::daemon {

struct EngineConfig {
  unsigned workers = 1;
  DescriptorLimits limits;
  std::string daemon_version;
};

// Identity of the caller; aliases are never shared across tenants.
struct Peer {
  std::uint32_t tenant = 0;
};

class Engine {
 public:
  using CompileDone = std::function<void(v1::CompileResult)>;

  // `compiler` and `store` must outlive the engine.
  Engine(compiler::Compiler& compiler, store::ArtifactStore& store, EngineConfig config);
  ~Engine();  // Drain()s
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Answers one descriptor. `done` is called exactly once, on this thread (hit,
  // error) or on a compile thread. `descriptor` must stay alive until then.
  void Compile(const v1::KernelDescriptor& descriptor, const Peer& peer, bool include_ptx,
               CompileDone done);

  // Resolves one fast key: ALIAS_HIT with the artifact, MISS, or ERROR.
  [[nodiscard]] v1::CompileResult Lookup(const v1::FastKeyQuery& query, const Peer& peer,
                                         bool include_ptx);

  [[nodiscard]] v1::Stats Stats();
  [[nodiscard]] const std::string& toolchain_fingerprint() const { return toolchain_; }
  [[nodiscard]] const DescriptorLimits& limits() const { return config_.limits; }

  // Finishes queued and running compiles; later Compile() calls that need a
  // compile are answered UNAVAILABLE.
  void Drain();

 private:
  struct Waiter {
    CompileDone done;
    const v1::KernelDescriptor* descriptor;
    Peer peer;
    bool include_ptx;
  };
  struct Flight {
    std::vector<Waiter> waiters;  // guarded by Engine::mu_
  };

  // Serves `record` to a waiter: entry-point check, alias upkeep, wire artifact.
  v1::CompileResult Serve(const store::ArtifactRecord& record, const Waiter& waiter,
                          v1::CacheStatus status);
  void RecordAlias(const Waiter& waiter, const std::string& target, const std::string& key);
  void RunCompile(std::string key, DecodedKernel kernel, std::shared_ptr<Flight> flight,
                  bool store_result);
  v1::CompileResult Fail(const Status& status);

  compiler::Compiler& compiler_;
  store::ArtifactStore& store_;
  const EngineConfig config_;
  const std::string toolchain_;
  const std::chrono::steady_clock::time_point started_;

  std::mutex mu_;
  std::unordered_map<std::string, std::shared_ptr<Flight>> in_flight_;  // guarded by mu_

  std::atomic<std::uint64_t> compiles_{0}, hits_{0}, alias_hits_{0}, misses_{0}, coalesced_{0},
      errors_{0}, requests_{0}, store_errors_{0}, compile_micros_{0};

  ThreadPool pool_;  // last: destroyed (drained) first
};

}  // namespace qdcache::daemon
