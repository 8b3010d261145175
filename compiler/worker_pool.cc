#include "compiler/worker_pool.h"

#include <algorithm>
#include <cstring>
#include <future>

#include "compiler/worker_protocol.h"

namespace qdcache::compiler {
namespace {

using Clock = std::chrono::steady_clock;


std::string Seconds(std::chrono::milliseconds ms) {
  const auto whole = ms.count() / 1000;
  const auto frac = ms.count() % 1000;
  return std::to_string(whole) + (frac != 0 ? "." + std::to_string(1000 + frac).substr(1) : "") + " s";
}

void RequestToWire(const CompileInput& in, worker::v1::CompileRequest* w) {
  w->set_ir(in.ir.data(), in.ir.size());
  ToWire(in.target, w->mutable_target());
  ToWire(in.options, w->mutable_options());
  for (const std::string& e : in.entry_points) w->add_entry_points(e);
  w->set_input_kind(static_cast<int>(in.kind));
}

// Takes from `idle` (not empty) the worker that keeps parse `token`; else
// one that keeps none (so another call's kept parse survives); else the
// last released. The most recently released first: its caches are warm.
std::unique_ptr<WorkerProcess> TakeIdle(std::vector<std::unique_ptr<WorkerProcess>>& idle, std::uint64_t token) {
  auto keeps = [&](std::uint64_t t) {
    return std::find_if(idle.rbegin(), idle.rend(), [&](const auto& w) { return w->kept_parse() == t; });
  };
  auto pick = token != 0 ? keeps(token) : idle.rend();
  if (pick == idle.rend()) pick = keeps(0);
  if (pick == idle.rend()) pick = idle.rbegin();
  std::unique_ptr<WorkerProcess> worker = std::move(*pick);
  idle.erase(std::next(pick).base());
  return worker;
}

// A digest's answer: the 32 bytes, or the error it carries.
Expected<Digest> Digested(const Expected<worker::v1::Response>& response) {
  QDC_RETURN_IF_ERROR(response.status());
  QDC_RETURN_IF_ERROR(StatusFromWire(*response));
  Digest digest{};
  if (response->digest().size() != digest.size()) return Internal("compile worker sent a malformed digest");
  std::memcpy(digest.data(), response->digest().data(), digest.size());
  return digest;
}

}  // namespace

// A compile started ahead on a worker held under `token`; dropped untaken,
// it is given up. Or one that crashed its worker: then no worker is held,
// and the crash is the answer to that compile's request.
class WorkerPool::Ahead final : public CompileAhead {
 public:
  Ahead(WorkerPool& pool, std::uint64_t token) : pool_(pool), token_(token) {}
  Ahead(WorkerPool& pool, Status crashed, std::string request)
      : pool_(pool), token_(0), crashed_(std::move(crashed)), request_(std::move(request)) {}
  ~Ahead() override {
    if (token_ != 0) pool_.GiveUpAhead(token_);
  }
  [[nodiscard]] std::uint64_t token() const { return token_; }
  // The crash, if `request` is the compile that crashed.
  [[nodiscard]] std::optional<Status> CrashOf(const worker::v1::Request& request) const {
    if (crashed_.ok() || request.SerializeAsString() != request_) return std::nullopt;
    return crashed_;
  }

 private:
  WorkerPool& pool_;
  const std::uint64_t token_;  // 0: none held
  const Status crashed_;
  const std::string request_;  // of the compile that crashed
};

WorkerPool::WorkerPool(WorkerPoolConfig config) : config_(std::move(config)) {
  key_.size = std::max(1u, config_.key_workers);
  compile_.size = std::max(1u, config_.compile_workers);
  if (config_.max_respawns_per_second > 0) {
    respawns_.emplace(static_cast<int>(config_.max_respawns_per_second),
                      std::chrono::duration_cast<Clock::duration>(std::chrono::seconds(1)) /
                          config_.max_respawns_per_second,
                      Clock::now());
  }
  supervisor_ = std::thread([this] { SupervisorLoop(); });
  settler_ = std::thread([this] { SettleLoop(); });
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard lock(supervisor_mu_);
    stopping_ = true;  // no replacement starts from here on
  }
  supervisor_cv_.notify_all();
  {
    std::lock_guard lock(mu_);
    settler_stopping_ = true;
  }
  settle_.Cancel();  // a compile being settled: its worker is killed
  settle_cv_.notify_all();
  settler_.join();
  supervisor_.join();
  std::lock_guard lock(mu_);
  key_.idle.clear();  // SIGKILL + reap
  compile_.idle.clear();
  held_ahead_.clear();
  unsettled_.clear();
}

Expected<std::unique_ptr<WorkerPool>> WorkerPool::Start(WorkerPoolConfig config) {
  std::unique_ptr<WorkerPool> pool(new WorkerPool(std::move(config)));
  bool first = true;
  for (Lane* lane : {&pool->key_, &pool->compile_}) {
    for (unsigned i = 0; i < lane->size; ++i) {
      QDC_ASSIGN_OR_RETURN(std::unique_ptr<WorkerProcess> worker, pool->SpawnOnSupervisor(false));
      if (first) {
        pool->toolchain_ = worker->toolchain();  // later workers are checked against it
        first = false;
      }
      std::lock_guard lock(pool->mu_);
      lane->idle.push_back(std::move(worker));
      ++lane->live;
    }
  }
  return pool;
}

void WorkerPool::SupervisorLoop() {
  std::unique_lock lock(supervisor_mu_);
  for (;;) {
    supervisor_cv_.wait(lock, [&] { return stopping_ || !supervisor_jobs_.empty(); });
    if (stopping_) return;
    std::vector<std::function<void()>> jobs = std::move(supervisor_jobs_);
    supervisor_jobs_.clear();
    lock.unlock();
    for (auto& job : jobs) job();
    lock.lock();
  }
}

Expected<std::unique_ptr<WorkerProcess>> WorkerPool::SpawnOnSupervisor(bool replacement) {
  auto done = std::make_shared<std::promise<Expected<std::unique_ptr<WorkerProcess>>>>();
  std::future<Expected<std::unique_ptr<WorkerProcess>>> result = done->get_future();
  {
    std::lock_guard lock(supervisor_mu_);
    if (stopping_) return Unavailable("compile workers are shutting down");
    supervisor_jobs_.push_back([this, done, replacement] { done->set_value(SpawnChecked(replacement)); });
  }
  supervisor_cv_.notify_one();
  return result.get();
}

bool WorkerPool::AwaitRespawnToken() {
  std::unique_lock lock(supervisor_mu_);
  bool waited = false;
  for (;;) {
    if (stopping_) return false;
    const Clock::time_point now = Clock::now();
    if (!respawns_ || respawns_->TryTake(now)) return true;
    if (!waited) ++respawns_delayed_;
    waited = true;
    // Woken early only by the destructor (stopping_); the wait is the limit.
    supervisor_cv_.wait_until(lock, respawns_->NextToken(now));
  }
}

Expected<std::unique_ptr<WorkerProcess>> WorkerPool::SpawnChecked(bool replacement) {
  if (replacement && !AwaitRespawnToken()) return Unavailable("compile workers are shutting down");
  QDC_ASSIGN_OR_RETURN(std::unique_ptr<WorkerProcess> worker, WorkerProcess::Spawn(config_.spawn));
  ++started_;
  // toolchain_ is empty only while Start spawns the first worker.
  if (!toolchain_.llvm_version.empty() && worker->toolchain() != toolchain_) {
    worker->Retire();
    return Internal("a new compile worker reports another toolchain than the running ones "
                    "(LLVM, CUDA or libdevice changed on disk?); restart qdcached");
  }
  return worker;
}

void WorkerPool::Replenish(Lane& lane) {
  std::lock_guard lock(supervisor_mu_);
  if (stopping_) return;
  supervisor_jobs_.push_back([this, &lane] {
    {
      std::lock_guard pool_lock(mu_);
      if (lane.live >= lane.size) return;
      ++lane.live;
    }
    Expected<std::unique_ptr<WorkerProcess>> worker = SpawnChecked(/*replacement=*/true);
    std::lock_guard pool_lock(mu_);
    if (!worker.ok()) {
      --lane.live;  // the next Acquire tries again and reports why
      return;
    }
    lane.idle.push_back(std::move(worker).value());
    idle_cv_.notify_all();  // both lanes wait on it
  });
  supervisor_cv_.notify_one();
}

Expected<std::unique_ptr<WorkerProcess>> WorkerPool::Acquire(Lane& lane, const CallControl& control) {
  std::unique_lock lock(mu_);
  for (;;) {
    if (control.cancel != nullptr && control.cancel->cancelled()) return Cancelled("compile cancelled");
    if (Clock::now() >= control.deadline) return DeadlineExceeded("deadline passed waiting for a compile worker");
    if (!lane.idle.empty()) return TakeIdle(lane.idle, control.parse);
    if (lane.live < lane.size) {
      ++lane.live;
      lock.unlock();
      Expected<std::unique_ptr<WorkerProcess>> worker = SpawnOnSupervisor(/*replacement=*/true);
      lock.lock();
      if (!worker.ok()) --lane.live;
      return worker;
    }
    // Every compile worker held for a compile ahead: their holders may be
    // queued behind this call for a thread, so the first held is given up
    // (a worker that is busy otherwise comes back by itself).
    if (&lane == &compile_ && !held_ahead_.empty() && held_ahead_.size() >= lane.live) {
      unsettled_.push_back(std::move(held_ahead_.front().second));
      held_ahead_.erase(held_ahead_.begin());
      settle_cv_.notify_one();
    }
    // Wakes for a released worker; re-checks cancellation every 100 ms.
    ++lane.waiting;
    idle_cv_.wait_for(lock, std::chrono::milliseconds(100));
    --lane.waiting;
  }
}

void WorkerPool::Release(Lane& lane, std::unique_ptr<WorkerProcess> worker) {
  if (worker->alive()) {
    std::lock_guard lock(mu_);
    lane.idle.push_back(std::move(worker));
    idle_cv_.notify_all();  // both lanes wait on it
    return;
  }
  worker.reset();  // already reaped
  {
    std::lock_guard lock(mu_);
    --lane.live;
  }
  idle_cv_.notify_all();  // a waiter may start the replacement itself
  Replenish(lane);
}

void WorkerPool::Count(const Status& failure) {
  switch (failure.code()) {
    case Code::kCancelled: ++cancelled_; break;
    case Code::kDeadlineExceeded: ++timed_out_; break;
    case Code::kResourceExhausted: ++out_of_memory_; break;
    default: ++crashed_; break;
  }
}

std::unique_ptr<WorkerProcess> WorkerPool::TakeAhead(std::uint64_t token) {
  std::lock_guard lock(mu_);
  return TakeHeldLocked(token);
}

std::unique_ptr<WorkerProcess> WorkerPool::TakeHeldLocked(std::uint64_t token) {
  auto it = std::find_if(held_ahead_.begin(), held_ahead_.end(), [&](const auto& h) { return h.first == token; });
  if (it == held_ahead_.end()) return nullptr;  // taken by its compile, or given up for a waiting one
  std::unique_ptr<WorkerProcess> worker = std::move(it->second);
  held_ahead_.erase(it);
  return worker;
}

void WorkerPool::GiveUpAhead(std::uint64_t token) {
  {
    std::lock_guard lock(mu_);
    std::unique_ptr<WorkerProcess> worker = TakeHeldLocked(token);
    if (worker == nullptr) return;
    unsettled_.push_back(std::move(worker));
  }
  settle_cv_.notify_one();
}

// Asks each given-up worker to drop its compile ahead, which it answers
// once that compile has ended; then it is put back (or, dead or failed,
// replaced) as after any call.
void WorkerPool::SettleLoop() {
  worker::v1::Request drop;
  drop.mutable_drop_ahead();
  CallControl control;
  control.cancel = &settle_;
  std::unique_lock lock(mu_);
  for (;;) {
    settle_cv_.wait(lock, [&] { return settler_stopping_ || !unsettled_.empty(); });
    if (settler_stopping_) return;
    std::unique_ptr<WorkerProcess> worker = std::move(unsettled_.back());
    unsettled_.pop_back();
    lock.unlock();
    (void)Run(compile_, drop, control, std::move(worker));
    lock.lock();
  }
}

std::unique_ptr<WorkerProcess> WorkerPool::TakeIdleCompileWorker() {
  std::lock_guard lock(mu_);
  if (compile_.idle.empty() || compile_.waiting > 0) return nullptr;
  return TakeIdle(compile_.idle, 0);
}

Expected<worker::v1::Response> WorkerPool::Run(Lane& lane, const worker::v1::Request& request,
                                               const CallControl& control, std::unique_ptr<WorkerProcess> worker,
                                               std::uint64_t keeps_parse, std::uint64_t holds_ahead) {
  if (worker == nullptr) {
    QDC_ASSIGN_OR_RETURN(worker, Acquire(lane, control));
  }
  // The time limit counts from here: waiting for a worker is not compiling.
  CallControl bounded = control;
  bool pool_limit = false;
  if (config_.compile_timeout.count() > 0) {
    const Clock::time_point limit = Clock::now() + config_.compile_timeout;
    if (limit < bounded.deadline) {
      bounded.deadline = limit;
      pool_limit = true;
    }
  }
  Expected<worker::v1::Response> response = worker->Call(request, bounded);
  // Whatever it kept before is gone after this call (kept_parse.h).
  const bool kept = keeps_parse != 0 && response.ok() && response->code() == 0;
  worker->set_kept_parse(kept ? keeps_parse : 0);
  if (response.ok() && response->parse_reused()) ++parses_reused_;
  if (response.ok() && response->answered_ahead()) ++answered_ahead_;
  if (!worker->alive()) {
    Count(response.ok() ? StatusFromWire(*response) : response.status());
  } else if (response.ok() && response->code() != 0) {
    // LLVM's error paths are not all clean: after refusing an input a worker
    // has been seen to crash on the next one. A fresh worker serves the next.
    worker->Retire();
  }
  if (!worker->alive() && control.workers_used_up != nullptr) ++*control.workers_used_up;
  if (holds_ahead != 0 && worker->alive()) {
    std::lock_guard lock(mu_);
    held_ahead_.emplace_back(holds_ahead, std::move(worker));
    idle_cv_.notify_all();  // a compile waiting in Acquire may have to give it up
  } else {
    Release(lane, std::move(worker));
  }
  if (!response.ok() && response.status().code() == Code::kDeadlineExceeded && pool_limit) {
    return DeadlineExceeded("compile exceeded the time limit of " + Seconds(config_.compile_timeout) +
                            "; its worker was killed");
  }
  return response;
}

Expected<CompileOutput> WorkerPool::Compile(const CompileInput& input, const CallControl& control) {
  worker::v1::Request request;
  RequestToWire(input, request.mutable_compile());
  QDC_ASSIGN_OR_RETURN(worker::v1::Response response, Run(compile_, request, control));
  QDC_RETURN_IF_ERROR(StatusFromWire(response));
  return FromWire(response.output());
}

Expected<Digest> WorkerPool::CanonicalIrDigest(std::string_view ir, const Target& target,
                                               bool keep_debug_info, const CallControl& control) {
  worker::v1::Request request;
  worker::v1::DigestRequest* r = request.mutable_digest();
  r->set_ir(ir.data(), ir.size());
  ToWire(target, r->mutable_target());
  r->set_keep_debug_info(keep_debug_info);
  // On a compile worker idle now, which keeps the module for the compile
  // that a miss makes next, or starts that compile at once; never waiting
  // for one: while compiles occupy them, digests (hits by IR among them)
  // run on the key workers.
  if (control.kept_parse != nullptr) *control.kept_parse = 0;
  if (control.ahead != nullptr) control.ahead->reset();
  std::unique_ptr<WorkerProcess> keeper;
  if (control.kept_parse != nullptr || control.ahead != nullptr) keeper = TakeIdleCompileWorker();
  if (keeper == nullptr) return Digested(Run(key_, request, control));
  const std::uint64_t token = next_parse_token_++;
  if (control.compile_ahead == nullptr || control.ahead == nullptr) {
    r->set_keep_parse(control.kept_parse != nullptr);
    Expected<Digest> digest =
        Digested(Run(compile_, request, control, std::move(keeper), control.kept_parse != nullptr ? token : 0));
    if (digest.ok() && control.kept_parse != nullptr) *control.kept_parse = token;
    return digest;
  }
  CompileInput next = *control.compile_ahead;
  if (next.ir == ir) next.ir = {};  // sent once, as the digest's
  RequestToWire(next, r->mutable_compile_ahead());
  const Clock::time_point started = Clock::now();
  Expected<worker::v1::Response> response = Run(compile_, request, control, std::move(keeper), 0, token);
  if (response.ok() && response->code() == 0) {
    ++compiles_ahead_;
    auto ahead = std::make_shared<Ahead>(*this, token);
    ahead->started = started;
    *control.ahead = std::move(ahead);
  } else if (!response.ok() || response->fatal()) {
    // The worker died, maybe of the compile beside the digest: the digest
    // alone, on a key worker, says whether the input is to blame. A crash
    // is that compile's answer too (one input costs one worker, not two);
    // out of memory or time, the compile alone gets its own chance.
    const Status died = response.ok() ? StatusFromWire(*response) : response.status();
    worker::v1::Request crashed;
    *crashed.mutable_compile_through_cubin() = std::move(*r->mutable_compile_ahead());
    r->clear_compile_ahead();
    Expected<Digest> digest = Digested(Run(key_, request, control));
    if (digest.ok() && died.code() == Code::kInternal) {
      if (crashed.compile_through_cubin().ir().empty()) crashed.mutable_compile_through_cubin()->set_ir(ir.data(), ir.size());
      auto ahead = std::make_shared<Ahead>(*this, died, crashed.SerializeAsString());
      ahead->started = started;
      *control.ahead = std::move(ahead);
    }
    return digest;
  }
  return Digested(response);
}

Expected<PtxOutput> WorkerPool::CompileToPtx(const CompileInput& input, const CallControl& control) {
  worker::v1::Request request;
  RequestToWire(input, request.mutable_compile_to_ptx());
  QDC_ASSIGN_OR_RETURN(worker::v1::Response response, Run(compile_, request, control));
  QDC_RETURN_IF_ERROR(StatusFromWire(response));
  return AsPtxOutput(FromWire(response.output()));
}

Expected<StagedCubin> WorkerPool::CompileThroughCubin(const CompileInput& input, const CallControl& control) {
  worker::v1::Request request;
  RequestToWire(input, request.mutable_compile_through_cubin());
  // The worker its digest started this compile on, when it did.
  auto* ahead = dynamic_cast<Ahead*>(control.from_ahead);
  if (ahead != nullptr) {
    if (std::optional<Status> crashed = ahead->CrashOf(request)) return *crashed;
  }
  std::unique_ptr<WorkerProcess> worker = ahead != nullptr ? TakeAhead(ahead->token()) : nullptr;
  QDC_ASSIGN_OR_RETURN(worker::v1::Response response, Run(compile_, request, control, std::move(worker)));
  QDC_RETURN_IF_ERROR(StatusFromWire(response));
  StagedCubin out;
  out.cubin = FromWire(response.output());
  out.ptx = AsPtxOutput(FromWire(response.ptx_stage()));
  out.ptx.ptx = out.cubin.ptx;  // sent once
  return out;
}

Expected<CompileOutput> WorkerPool::LinkCubin(std::string_view ptx, const std::vector<EntryInfo>& entries,
                                              const Target& target, const CompileOptions& options,
                                              const CallControl& control) {
  worker::v1::Request request;
  worker::v1::LinkRequest* r = request.mutable_link_cubin();
  r->set_ptx(ptx.data(), ptx.size());
  for (const EntryInfo& e : entries) ToWire(e, r->add_entries());
  ToWire(target, r->mutable_target());
  ToWire(options, r->mutable_options());
  QDC_ASSIGN_OR_RETURN(worker::v1::Response response, Run(compile_, request, control));
  QDC_RETURN_IF_ERROR(StatusFromWire(response));
  return FromWire(response.output());
}

WorkerPoolStats WorkerPool::stats() const {
  WorkerPoolStats s;
  s.started = started_;
  s.crashed = crashed_;
  s.timed_out = timed_out_;
  s.out_of_memory = out_of_memory_;
  s.cancelled = cancelled_;
  s.respawns_delayed = respawns_delayed_;
  s.parses_reused = parses_reused_;
  s.compiles_ahead = compiles_ahead_;
  s.answered_ahead = answered_ahead_;
  std::lock_guard lock(mu_);
  s.live = key_.live + compile_.live;
  return s;
}

}  // namespace qdcache::compiler
