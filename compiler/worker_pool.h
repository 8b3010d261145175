// The Compiler that qdcached uses: every call runs in a supervised compile
// worker process (worker_process.h), so no LLVM or nvJitLink code touches
// client input inside the daemon. Two lanes of workers: `key` for
// CanonicalIrDigest (short, on the request path of cache hits) and `compile`
// for Compile / CompileToPtx / LinkCubin, so hits never queue behind
// compiles. A digest that may keep its parse (CallControl::kept_parse) runs
// on a compile worker instead when one is idle, which then keeps the module
// for the compile that follows on a miss: a miss parses its IR once. Given
// the miss's compile too (CallControl::compile_ahead), that worker starts it
// at once, beside the digest, and is held for the compile call that takes
// it; given up, it ends its compile unwanted on a thread of the pool's
// before it serves another call. Workers are started up front, reused
// across successful calls, and replaced when they die or after a call that
// failed (LLVM's error paths may leave state behind); a call that crashes,
// hangs past its limit, runs out of memory or is cancelled kills only its
// own worker.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "common/expected.h"
#include "common/token_bucket.h"
#include "compiler/compiler.h"
#include "compiler/worker_process.h"

namespace qdcache::compiler {

struct WorkerPoolConfig {
  WorkerSpawnConfig spawn;
  unsigned compile_workers = 1;
  unsigned key_workers = 1;
  // Each call's limit, on top of its own CallControl deadline. 0: none.
  std::chrono::milliseconds compile_timeout{std::chrono::minutes(2)};
  // Replacement workers started per second at most (the initial ones are
  // not counted): a stream of inputs that each cost a worker cannot make the
  // daemon fork without bound; replacements past it wait. 0: unlimited.
  unsigned max_respawns_per_second = 20;
};

struct WorkerPoolStats {
  std::uint64_t started = 0;        // worker processes started, initial ones included
  std::uint64_t crashed = 0;        // died by a signal or an unexpected exit / LLVM fatal error
  std::uint64_t timed_out = 0;      // killed past the compile time limit or deadline
  std::uint64_t out_of_memory = 0;  // ran out of memory under the limit
  std::uint64_t cancelled = 0;      // killed because every caller had gone
  std::uint64_t respawns_delayed = 0;  // replacements that waited for max_respawns_per_second
  std::uint64_t parses_reused = 0;  // compiles that took the module their digest's worker kept
  std::uint64_t compiles_ahead = 0;    // digests that started their miss's compile beside them
  std::uint64_t answered_ahead = 0;    // compiles answered from the one their digest started
  unsigned live = 0;                // processes alive now
};

class WorkerPool final : public Compiler {
 public:
  // Starts every worker and checks that they agree on the toolchain.
  // UNAVAILABLE if a worker cannot be started.
  [[nodiscard]] static Expected<std::unique_ptr<WorkerPool>> Start(WorkerPoolConfig config);
  ~WorkerPool() override;  // kills every worker; calls must have returned

  Expected<CompileOutput> Compile(const CompileInput& input, const CallControl& control) override;
  Expected<Digest> CanonicalIrDigest(std::string_view ir, const Target& target, bool keep_debug_info,
                                     const CallControl& control) override;
  Expected<PtxOutput> CompileToPtx(const CompileInput& input, const CallControl& control) override;
  Expected<CompileOutput> LinkCubin(std::string_view ptx, const std::vector<EntryInfo>& entries,
                                    const Target& target, const CompileOptions& options,
                                    const CallControl& control) override;
  // One compile-worker call for both stages (its time limit covers both).
  Expected<StagedCubin> CompileThroughCubin(const CompileInput& input, const CallControl& control) override;
  const ToolchainInfo& toolchain() const override { return toolchain_; }

  [[nodiscard]] WorkerPoolStats stats() const;

  // Keep the base class's overloads without a CallControl visible.
  using Compiler::CanonicalIrDigest;
  using Compiler::Compile;
  using Compiler::CompileThroughCubin;
  using Compiler::CompileToPtx;
  using Compiler::LinkCubin;

 private:
  struct Lane {
    explicit Lane(const char* lane_name) : name(lane_name) {}
    const char* name;
    unsigned size = 0;
    std::vector<std::unique_ptr<WorkerProcess>> idle;  // guarded by WorkerPool::mu_
    unsigned live = 0;  // processes idle, busy or being started; guarded by mu_
    unsigned waiting = 0;  // calls waiting in Acquire for one; guarded by mu_
  };
  class Ahead;  // a CompileAhead: a worker held under a token
  explicit WorkerPool(WorkerPoolConfig config);

  // Runs `request` on a worker of `lane`: `worker` when given, else one
  // that waits idle (or is started), preferring the one that keeps
  // control.parse; calls it, and puts it back or replaces it. A worker
  // keeps a parse after the call only with `keeps_parse` (then its new token).
  // With `holds_ahead`, a worker that answered well is held under that
  // token (its compile ahead runs on) instead of put back.
  Expected<worker::v1::Response> Run(Lane& lane, const worker::v1::Request& request,
                                     const CallControl& control, std::unique_ptr<WorkerProcess> worker = nullptr,
                                     std::uint64_t keeps_parse = 0, std::uint64_t holds_ahead = 0);
  Expected<std::unique_ptr<WorkerProcess>> Acquire(Lane& lane, const CallControl& control);
  // An idle compile worker, taken now, for a digest that keeps its parse
  // (one that keeps none preferred); null when every one is busy or a
  // compile waits for one (a digest never goes ahead of a compile).
  std::unique_ptr<WorkerProcess> TakeIdleCompileWorker();
  void Release(Lane& lane, std::unique_ptr<WorkerProcess> worker);
  // The worker held under `token`, taken; null if none is. The Locked
  // one with mu_ held.
  std::unique_ptr<WorkerProcess> TakeAhead(std::uint64_t token);
  std::unique_ptr<WorkerProcess> TakeHeldLocked(std::uint64_t token);
  // The compile ahead held under `token` is not wanted: its worker goes to
  // the settler, which puts it back once that compile has ended.
  void GiveUpAhead(std::uint64_t token);
  void SettleLoop();
  void Count(const Status& failure);
  // Starts a worker on the spawner thread (so PR_SET_PDEATHSIG ties it to a
  // thread that lives as long as the pool) and waits for it. A replacement
  // (any worker after Start) first waits for a respawn token.
  Expected<std::unique_ptr<WorkerProcess>> SpawnOnSupervisor(bool replacement);
  // Spawns on the calling (supervisor) thread and checks the new worker's
  // toolchain against the pool's: keys must keep describing what compiles.
  Expected<std::unique_ptr<WorkerProcess>> SpawnChecked(bool replacement);
  // On the supervisor thread: waits until a replacement may start
  // (max_respawns_per_second). False when the pool is stopping.
  bool AwaitRespawnToken();
  void Replenish(Lane& lane);  // async: starts a replacement if the lane is short
  void SupervisorLoop();

  const WorkerPoolConfig config_;
  ToolchainInfo toolchain_;

  mutable std::mutex mu_;
  std::condition_variable idle_cv_;
  Lane key_{"key"};
  Lane compile_{"compile"};  // NOLINT: both guarded by mu_ (idle, live)

  std::mutex supervisor_mu_;
  std::condition_variable supervisor_cv_;
  std::vector<std::function<void()>> supervisor_jobs_;  // guarded by supervisor_mu_
  bool stopping_ = false;                                // guarded by supervisor_mu_
  std::optional<TokenBucket> respawns_;                   // guarded by supervisor_mu_; empty: unlimited
  std::thread supervisor_;

  // Workers whose compile ahead runs on: held for the call that takes it,
  // or given up and waiting to be settled. Both guarded by mu_.
  std::vector<std::pair<std::uint64_t, std::unique_ptr<WorkerProcess>>> held_ahead_;
  std::vector<std::unique_ptr<WorkerProcess>> unsettled_;
  std::condition_variable settle_cv_;
  bool settler_stopping_ = false;  // guarded by mu_
  CancelToken settle_;             // cancelled when the pool stops
  std::thread settler_;

  std::atomic<std::uint64_t> started_{0}, crashed_{0}, timed_out_{0}, out_of_memory_{0},
      cancelled_{0}, respawns_delayed_{0}, parses_reused_{0}, compiles_ahead_{0}, answered_ahead_{0};
  std::atomic<std::uint64_t> next_parse_token_{1};
};

}  // namespace qdcache::compiler
