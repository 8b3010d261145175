#include "engine/engine.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "common/digest.h"
#include "common/utf8.h"
#include "compiler/ptx_text.h"
#include "engine/artifact_key.h"
#include "engine/artifact_record.h"
#include "engine/component_diff.h"
#include "engine/manifest.h"

namespace qdcache::engine {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}


// An input kind keyed in the daemon reaches `target` (the toolchain's list
// for it), so that a compile or an explain of an unreachable SM is refused
// before anything is keyed (every kind but LLVM IR is keyed in the daemon).
Status CheckReach(const compiler::InputKind& kind, const compiler::Target& target,
                  const compiler::ToolchainInfo& toolchain) {
  if (target.kind != compiler::TargetKind::kCuda) return Status::Ok();
  if (!toolchain.cuda_available) {
    return FailedPrecondition(std::string(kind.name) + " input needs CUDA (nvJitLink), which this daemon lacks" +
                              " (CUDA: " + toolchain.cuda_version + ")");
  }
  using Reach = compiler::InputKind::Reach;
  const auto lacks = [](const std::string& version) {
    return version.empty() || version == "none" || version.rfind("probe-failed", 0) == 0;
  };
  if (kind.reach == Reach::kLibNvvm && lacks(toolchain.nvvm_version)) {
    return FailedPrecondition(std::string(kind.name) + " input needs libNVVM, which this daemon lacks (libNVVM: " +
                              toolchain.nvvm_version + ")");
  }
  if (kind.reach == Reach::kNvrtc && lacks(toolchain.nvrtc_version)) {
    return FailedPrecondition(std::string(kind.name) + " input needs NVRTC, which this daemon lacks (NVRTC: " +
                              toolchain.nvrtc_version + ")");
  }
  const std::vector<std::string>& sms =
      kind.reach == Reach::kLlvmNvptx || toolchain.ptx_sms.empty() ? toolchain.cuda_sms : toolchain.ptx_sms;
  if (std::find(sms.begin(), sms.end(), target.sm) != sms.end()) return Status::Ok();
  std::string list;
  for (const std::string& sm : sms) list += (list.empty() ? "" : ", ") + sm;
  return InvalidArgument("unsupported CUDA SM '" + target.sm + "' for " + std::string(kind.name) +
                         " input (nvJitLink " + toolchain.nvjitlink_version + " links it for: " + list + ")");
}

}  // namespace

Engine::Engine(compiler::Compiler& compiler, store::ArtifactStore& store, EngineConfig config)
    : compiler_(compiler),
      store_(store),
      config_(std::move(config)),
      toolchain_(ToolchainFingerprint(compiler.toolchain(), config_.daemon_version)),
      started_(Clock::now()),
      failures_(config_.failure_memory, 4096),
      budget_(config_.failure_budget),
      pool_(config_.workers, config_.max_queue),
      keying_pool_(config_.workers, config_.max_queue),
      fleet_waits_(config_.fleet ? std::make_unique<FleetWaits>(*config_.fleet, config_.fleet_poll) : nullptr) {}

Engine::~Engine() { Drain(); }

void Engine::StopFleetWaits() {
  fleet_stopping_ = true;
  if (fleet_waits_) fleet_waits_->Stop();
}

void Engine::Drain() {
  keying_pool_.Drain();  // its tasks may still submit to pool_
  // Parked compiles go back to pool_ (compiled here) while it still takes
  // tasks; compiles after that take no lease.
  StopFleetWaits();
  pool_.Drain();
  tarpit_.Flush();
}

void Engine::CountSaved(std::uint64_t compile_micros) {
  const std::chrono::seconds longest =
      config_.compile_timeout.count() > 0 ? config_.compile_timeout : std::chrono::hours(1);
  const auto cap = static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(longest).count());
  compile_micros_saved_ += std::min(compile_micros, cap);
}

v1::CompileResult Engine::Fail(const Status& status) {
  ++errors_;
  v1::CompileResult r;
  r.set_status(v1::CACHE_STATUS_ERROR);
  r.mutable_error()->set_code(static_cast<int>(status.code()));
  r.mutable_error()->set_message(ValidUtf8(status.message()));
  return r;
}

namespace {
constexpr std::size_t kMaxKeptParseIrBytes = std::size_t{16} << 20;

// Whether a miss of `in` is compiled by one CompileThroughCubin (RunStages).
bool CompilesThroughCubin(const compiler::CompileInput& in) {
  const std::span<const compiler::StageId> stages = compiler::InputKindOf(in.kind).stages(in.target.kind);
  return stages.size() == 2 && stages[0] == compiler::StageId::kIrToPtx &&
         stages[1] == compiler::StageId::kPtxToCubin;
}
}  // namespace

Expected<Engine::Keyed> Engine::KeyOf(Decoded decoded, const Peer& peer, const Status& budget,
                                       bool* over_budget) {
  *over_budget = false;
  Keyed k;
  k.kernel = std::move(decoded.kernel);
  const bool keep_debug = KeepsDebugInfo(k.kernel);
  k.target = k.kernel.input.target.ToString();
  const compiler::InputKind& kind = compiler::InputKindOf(k.kernel.input.kind);
  if (kind.canonical_text != nullptr) {  // keyed here, without a worker
    QDC_RETURN_IF_ERROR(CheckReach(kind, k.kernel.input.target, compiler_.toolchain()));
    // A CUDA C++ program's sources travel as one encoding (DecodedKernel::program).
    const std::string_view sent = k.kernel.program.empty() ? k.kernel.input.ir : k.kernel.program;
    QDC_ASSIGN_OR_RETURN(k.canonical_text, kind.canonical_text(sent, keep_debug));
    k.canonical_ir = Sha256(k.canonical_text);
    k.components = ArtifactKeyComponents(k.kernel, k.canonical_ir, toolchain_, k.canonical_text);
    k.key = DigestBytes(KeyFromComponents("artifact", k.components));
    return k;
  }
  const std::string& raw = decoded.raw;
  if (!decoded.memoized) decoded.memoized = ir_digests_.Find(raw);
  // A peer past its failure budget is keyed only from memory: IR it sent
  // before (a hit) needs no worker.
  if (!budget.ok() && !decoded.memoized) {
    *over_budget = true;
    return budget;
  }
  if (decoded.memoized) {
    k.canonical_ir = *decoded.memoized;
  } else {
    QDC_ASSIGN_OR_RETURN(k.canonical_ir, ir_digests_.FindOrCompute(raw, [&]() -> Expected<Digest> {
      if (std::optional<Status> remembered = failures_.Find(raw)) {
        ++remembered_failures_;
        return *remembered;
      }
      std::atomic<int> used_up{0};
      compiler::CallControl control;
      control.workers_used_up = &used_up;
      // A miss compiles this IR next: let the digest's worker keep its
      // parse, or begin that compile at once (CUDA), unless the IR is so
      // large that two modules at once (what either costs the digest) might
      // not fit the worker's memory.
      compiler::CompileInput next;
      if (k.kernel.input.ir.size() <= kMaxKeptParseIrBytes) {
        control.kept_parse = &k.kept_parse;
        if (CompilesThroughCubin(k.kernel.input)) {
          next = k.kernel.input;
          next.entry_points.clear();  // as RunCompile compiles it
          control.compile_ahead = &next;
          control.ahead = &k.ahead;
        }
      }
      Expected<Digest> digest =
          compiler_.CanonicalIrDigest(k.kernel.input.ir, k.kernel.input.target, keep_debug, control);
      budget_.Charge(peer.tenant, used_up.load());
      if (!digest.ok()) failures_.Remember(raw, digest.status());
      return digest;
    }));
  }
  k.components = ArtifactKeyComponents(k.kernel, k.canonical_ir, toolchain_);
  k.key = DigestBytes(KeyFromComponents("artifact", k.components));
  return k;
}

Expected<Engine::Decoded> Engine::Decode(const v1::KernelDescriptor& descriptor) const {
  Decoded decoded;
  QDC_ASSIGN_OR_RETURN(decoded.kernel, DecodeKernel(descriptor, config_.limits));
  if (compiler::InputKindOf(decoded.kernel.input.kind).canonical_text == nullptr) {
    decoded.raw = IrDigestMemo::RawKey(decoded.kernel.input.ir, decoded.kernel.input.target.ToString(),
                                       KeepsDebugInfo(decoded.kernel));
  }
  return decoded;
}

bool Engine::KeyingNeedsWorker(Decoded& decoded) {
  if (decoded.raw.empty()) return false;
  decoded.memoized = ir_digests_.Find(decoded.raw);
  return !decoded.memoized && !failures_.Find(decoded.raw);
}

bool Engine::AnswerIfCancelled(const std::shared_ptr<Call>& call, CompileDone& done) {
  if (call == nullptr) return false;
  {
    std::lock_guard lock(call->mu_);
    if (!call->cancelled_) return false;
  }
  ++cancelled_;
  done(Fail(Cancelled("request cancelled")));
  return true;
}

void Engine::Compile(const v1::KernelDescriptor& descriptor, const Peer& peer, bool include_ptx,
                     const std::shared_ptr<Call>& call, CompileDone done, bool caller_may_wait) {
  ++requests_;
  if (AnswerIfCancelled(call, done)) return;  // keying a cancelled batch's remaining items is wasted work
  Expected<Decoded> decoded = Decode(descriptor);
  if (!decoded.ok()) {
    done(Fail(decoded.status()));
    return;
  }
  // A peer past its failure budget is refused here, on this thread: it gets
  // no worker, so its keying cannot wait for one.
  std::chrono::milliseconds retry_after{0};
  if (caller_may_wait || !KeyingNeedsWorker(*decoded) || !budget_.Check(peer.tenant, &retry_after).ok()) {
    CompileDecoded(std::move(decoded).value(), descriptor, peer, include_ptx, call, std::move(done));
    return;
  }
  // `done` is shared with the task so that a refused Submit can still answer.
  auto answer = std::make_shared<CompileDone>(std::move(done));
  Status submitted = keying_pool_.Submit(
      [this, decoded = std::move(decoded).value(), &descriptor, peer, include_ptx, call, answer]() mutable {
        CompileDecoded(std::move(decoded), descriptor, peer, include_ptx, call, std::move(*answer));
      });
  if (!submitted.ok()) {
    ++queue_rejections_;
    (*answer)(Fail(submitted));
  }
}

void Engine::CompileDecoded(Decoded decoded, const v1::KernelDescriptor& descriptor, const Peer& peer,
                            bool include_ptx, const std::shared_ptr<Call>& call, CompileDone done) {
  if (AnswerIfCancelled(call, done)) return;  // a keying that waited in the queue may belong to a call gone since
  // A peer past its failure budget is served what needs no worker; the rest
  // is refused, and the refusal held back a while (RefuseOverBudget).
  std::chrono::milliseconds retry_after{0};
  const Status budget = budget_.Check(peer.tenant, &retry_after);
  bool over_budget = false;
  Expected<Keyed> keyed = KeyOf(std::move(decoded), peer, budget, &over_budget);
  if (over_budget) return RefuseOverBudget(budget, retry_after, std::move(done));
  if (!keyed.ok()) {
    done(Fail(keyed.status()));
    return;
  }
  const std::string key = keyed->key;
  const bool no_store = keyed->kernel.no_store;
  // A read-only peer may hit the store but leads no storing flight.
  const bool store_result = !no_store && peer.may_write;
  keyed->read_only = !peer.may_write;
  Waiter waiter{std::move(done), &descriptor, peer, include_ptx, call, std::move(keyed->kernel.manifest)};

  if (!no_store && !keyed->kernel.recache) {
    Expected<std::shared_ptr<const store::ArtifactRecord>> got = store_.GetShared(key);
    if (!got.ok()) {
      ++store_errors_;
      spdlog::warn("store read failed for {}: {} (compiling instead)", ShortKey(key),
                   got.status().ToString());
    } else if (*got != nullptr) {
      v1::CompileResult result = Serve(**got, waiter, v1::CACHE_STATUS_HIT, keyed->components);
      if (result.status() == v1::CACHE_STATUS_HIT) {
        ++hits_;
        CountSaved((*got)->compile_micros);
      }
      waiter.done(std::move(result));
      return;
    }
    // Not stored (or unreadable): this item compiles, joins a compile, or fails.
    ++artifact_misses_;
  }
  if (std::optional<Status> remembered = failures_.Find(key)) {
    ++remembered_failures_;
    waiter.done(Fail(*remembered));
    return;
  }

  // Joining a flight and registering it with the call happen under the
  // call's lock, so a concurrent Cancel either sees the flight or makes us
  // see the cancellation.
  std::unique_lock<std::mutex> call_lock;
  if (call != nullptr) {
    call_lock = std::unique_lock(call->mu_);
    if (call->cancelled_) {
      call_lock.unlock();
      ++cancelled_;
      waiter.done(Fail(Cancelled("request cancelled")));
      return;
    }
  }
  // A peer past its failure budget may join a compile already running (that
  // costs no worker) but not lead a new one.
  std::shared_ptr<Flight> flight;
  bool leader = true;
  {
    std::lock_guard lock(mu_);
    auto running = store_result ? in_flight_.find(key) : in_flight_.end();
    if (running != in_flight_.end()) {
      leader = false;
      flight = running->second;
    } else if (budget.ok()) {
      flight = std::make_shared<Flight>(store_result ? key : std::string(), peer.tenant);
      if (store_result) in_flight_.emplace(key, flight);
    }
    if (flight != nullptr) {
      flight->waiters.push_back(std::move(waiter));
      flight->recache = flight->recache || keyed->kernel.recache;
    }
  }
  if (flight == nullptr) {  // refused by the budget
    if (call_lock.owns_lock()) call_lock.unlock();
    RefuseOverBudget(budget, retry_after, std::move(waiter.done));
    return;
  }
  if (call != nullptr) {
    call->flights_.push_back(flight);
    call_lock.unlock();
  }
  if (!leader) {
    ++coalesced_;
    return;
  }

  if (compiler::InputKindOf(keyed->kernel.input.kind).compiles_canonical_text) {
    keyed->owned_ir = keyed->canonical_text;
  } else {
    keyed->owned_ir.assign(keyed->kernel.input.ir);
  }
  SubmitCompile(std::move(keyed).value(), std::move(flight), store_result, FleetTurn{});
}

void Engine::SubmitCompile(Keyed keyed, std::shared_ptr<Flight> flight, bool store_result, FleetTurn turn) {
  Status submitted = pool_.Submit([this, keyed = std::move(keyed), flight, store_result, turn]() mutable {
    RunCompile(std::move(keyed), std::move(flight), store_result, turn);
  });
  if (!submitted.ok()) {
    ++queue_rejections_;
    std::vector<Waiter> waiters;
    {
      std::lock_guard lock(mu_);
      ForgetFlight(flight);
      waiters = std::move(flight->waiters);
    }
    for (Waiter& w : waiters) w.done(Fail(submitted));
  }
}

void Engine::ParkForFleet(Keyed keyed, std::shared_ptr<Flight> flight, bool store_result, FleetTurn turn) {
  // No worker is held while another daemon compiles: a compile begun here
  // is given up.
  keyed.ahead.reset();
  if (!turn.waited) {
    ++fleet_waits_count_;
    turn.waited = true;
    turn.deadline = Clock::now() + config_.fleet_wait;
    spdlog::debug("fleet: another daemon compiles {}; waiting for its artifact", ShortKey(keyed.key));
  }
  auto parked = std::make_shared<Keyed>(std::move(keyed));
  FleetWaits::Entry entry;
  entry.key = parked->key;
  entry.deadline = turn.deadline;
  entry.published = [this, key = parked->key] {
    Expected<std::optional<store::ArtifactRecord>> got = store_.Get(key);
    return got.ok() && got->has_value();
  };
  entry.abandoned = [flight] { return flight->cancel.cancelled(); };
  entry.resume = [this, parked, flight, store_result, turn](FleetWaits::Outcome outcome) mutable {
    turn.published = outcome == FleetWaits::Outcome::kPublished;
    // The lease ended without an artifact (its holder failed, kept the
    // artifact local, or died): compile here, without a lease, so that the
    // waiters of the fleet compile side by side rather than one after another.
    if (outcome == FleetWaits::Outcome::kLeaseFree) {
      ++fleet_wait_orphans_;
      turn.local = true;
    }
    if (outcome == FleetWaits::Outcome::kTimedOut) {
      ++fleet_wait_timeouts_;
      turn.local = true;
    }
    SubmitCompile(std::move(*parked), std::move(flight), store_result, turn);
  };
  fleet_waits_->Park(std::move(entry));
}

void Engine::RefuseOverBudget(const Status& budget, std::chrono::milliseconds retry_after, CompileDone done) {
  ++budget_refusals_;
  // Held back until the tenant may try again (at most a second): a client
  // that retries at once cannot spin on refusals.
  constexpr std::chrono::milliseconds kMaxHold{1000};
  tarpit_.At(Clock::now() + std::min(retry_after, kMaxHold),
             [done = std::move(done), refusal = Fail(budget)]() mutable { done(std::move(refusal)); });
}

void Engine::ForgetFlight(const std::shared_ptr<Flight>& flight) {
  if (flight->key.empty()) return;
  auto it = in_flight_.find(flight->key);
  if (it != in_flight_.end() && it->second == flight) in_flight_.erase(it);
}

void Engine::Cancel(const std::shared_ptr<Call>& call) {
  if (call == nullptr) return;
  std::vector<std::weak_ptr<Flight>> flights;
  {
    std::lock_guard lock(call->mu_);
    if (call->cancelled_) return;
    call->cancelled_ = true;
    flights = std::move(call->flights_);
  }
  std::vector<Waiter> gone;
  {
    std::lock_guard lock(mu_);
    for (const std::weak_ptr<Flight>& weak : flights) {
      std::shared_ptr<Flight> flight = weak.lock();
      if (flight == nullptr) continue;
      auto& ws = flight->waiters;
      for (auto it = ws.begin(); it != ws.end();) {
        if (it->call == call) {
          gone.push_back(std::move(*it));
          it = ws.erase(it);
        } else {
          ++it;
        }
      }
      if (ws.empty() && !flight->cancel.cancelled()) {
        // Nobody waits any more: stop the compile, and let the next request
        // for this key start a fresh flight rather than join a dying one.
        flight->cancel.Cancel();
        ForgetFlight(flight);
      }
    }
  }
  cancelled_ += gone.size();
  for (Waiter& w : gone) w.done(Fail(Cancelled("request cancelled")));
}

void Engine::WriteStages(const StageWrites& writes) {
  for (std::size_t i = 0; i < writes.keys.size(); ++i) {
    Status s = store_.PutStage(writes.keys[i], writes.values[i]);
    if (!s.ok()) {
      ++store_errors_;
      spdlog::warn("stage write failed: {}", s.ToString());
    }
  }
  stage_writes_.End(writes.keys);
}

Expected<compiler::CompileOutput> Engine::RunStages(const Keyed& k, const compiler::CallControl& control,
                                                    bool* stage_hit, StageWrites* writes) {
  const compiler::CompileInput& in = k.kernel.input;
  const std::span<const compiler::StageId> stages = compiler::InputKindOf(in.kind).stages(in.target.kind);
  if (stages.empty()) {
    return InvalidArgument(std::string(compiler::InputKindOf(in.kind).name) + " input cannot be compiled for " +
                           std::string(FamilyOf(in.target.kind).name) + " targets");
  }
  // no_store: touch no cache at all; recache: distrust what is stored, refill it.
  const bool read_stages = !k.kernel.no_store && !k.kernel.recache;
  const bool write_stages = !k.kernel.no_store && !k.read_only;
  compiler::CompileOutput carried;  // the previous stage's output (its PTX) and what came with it
  const compiler::StageSpec* previous = nullptr;
  const compiler::InputKind& kind = compiler::InputKindOf(in.kind);
  if (kind.canonical_text != nullptr && stages.front() == compiler::StageId::kPtxToCubin) {
    // The canonical text is what the first stage compiles (a PTX input: PTX
    // for nvJitLink, with the kernels it defines).
    carried.ptx = k.canonical_text;
    carried.entries = compiler::PtxEntryInfos(carried.ptx);
  }
  const bool keep_debug = KeepsDebugInfo(k.kernel);
  // The cubin stage's output when the PTX stage made it too, in one call.
  std::optional<compiler::CompileOutput> linked_ahead;
  for (std::size_t index = 0; index < stages.size(); ++index) {
    const compiler::StageId id = stages[index];
    const compiler::StageSpec& stage = compiler::StageOf(id);
    std::optional<Digest> stage_key;
    if (stage.cached) {
      if (std::optional<KeyComponent> input =
              StageInputComponent(stage, previous, kind, k.canonical_ir, carried.ptx, keep_debug)) {
        stage_key = StageKey(stage, *input, in.target, in.options, toolchain_);
      }
    }
    const bool first = previous == nullptr;
    previous = &stage;
    if (stage_key && read_stages) {
      // One a compile has made but not yet written (it answers first) is waited for.
      stage_writes_.AwaitNone(DigestBytes(*stage_key));
      Expected<std::optional<std::string>> got = store_.GetStage(DigestBytes(*stage_key));
      if (got.ok() && got->has_value()) {
        if (Expected<compiler::CompileOutput> decoded = DecodeStage(**got); decoded.ok()) {
          *stage_hit = true;
          std::string ptx = std::move(carried.ptx);
          std::vector<compiler::LoweredName> names = std::move(carried.lowered_names);
          carried = std::move(decoded).value();
          if (carried.ptx.empty()) carried.ptx = std::move(ptx);  // a cubin stage keeps the PTX it came from
          // ... and the lowered names of the program it came from: two
          // programs that meet at one PTX may name it differently.
          if (stage.input == compiler::StageInput::kPreviousOutput) carried.lowered_names = std::move(names);
          continue;
        }
      }
      if ((stage.options & kStageCodegen) != 0) ++stage_misses_;  // looked, found none: codegen runs
    }
    compiler::CompileOutput out;
    switch (id) {
      case compiler::StageId::kIrToPtx:
      case compiler::StageId::kCudaToPtx: {
        // A new PTX is linked next (a cubin stage stored for it is unlikely):
        // one compile-worker call makes both.
        compiler::PtxOutput ptx;
        if (index + 1 < stages.size() && stages[index + 1] == compiler::StageId::kPtxToCubin) {
          QDC_ASSIGN_OR_RETURN(compiler::StagedCubin both, compiler_.CompileThroughCubin(in, control));
          ptx = std::move(both.ptx);
          linked_ahead = std::move(both.cubin);
        } else {
          QDC_ASSIGN_OR_RETURN(ptx, compiler_.CompileToPtx(in, control));
        }
        out.ptx = std::move(ptx.ptx);
        out.entries = std::move(ptx.entries);
        out.lowered_names = std::move(ptx.lowered_names);
        out.log = std::move(ptx.log);
        out.timings = ptx.timings;
        break;
      }
      case compiler::StageId::kPtxToCubin: {
        if (carried.ptx.empty()) return Internal("the cubin stage has no PTX to link");
        Expected<compiler::CompileOutput> linked =
            linked_ahead ? Expected<compiler::CompileOutput>(std::move(*linked_ahead))
                         : compiler_.LinkCubin(carried.ptx, carried.entries, in.target, in.options, control);
        linked_ahead.reset();
        if (!linked.ok() && first && linked.status().code() == Code::kInvalidArgument &&
            kind.message_for_source != nullptr) {
          // About the client's own text: its line numbers, not the canonical text's.
          return Status(Code::kInvalidArgument, kind.message_for_source(linked.status().message(), in.ir,
                                                                         keep_debug, in.target.sm));
        }
        QDC_ASSIGN_OR_RETURN(out, std::move(linked));
        out.lowered_names = carried.lowered_names;
        out.log = carried.log + out.log;
        out.timings.parse_seconds = carried.timings.parse_seconds;
        out.timings.optimize_seconds = carried.timings.optimize_seconds;
        out.timings.codegen_seconds = carried.timings.codegen_seconds;
        break;
      }
      case compiler::StageId::kIrToSharedObject:
      case compiler::StageId::kIrToCodeObject:
        QDC_ASSIGN_OR_RETURN(out, compiler_.Compile(in, control));
        break;
    }
    if (stage_key && write_stages) {
      // A later stage's entry leaves out its input (the PTX): that has its own.
      const bool later = stage.input == compiler::StageInput::kPreviousOutput;
      std::string kept = later ? std::move(out.ptx) : std::string();
      std::vector<compiler::LoweredName> names = later ? std::move(out.lowered_names)
                                                       : std::vector<compiler::LoweredName>();
      writes->keys.push_back(DigestBytes(*stage_key));
      writes->values.push_back(EncodeStage(out));
      if (later) {
        out.ptx = std::move(kept);
        out.lowered_names = std::move(names);
      }
    }
    carried = std::move(out);
  }
  return carried;
}

void Engine::RunCompile(Keyed keyed, std::shared_ptr<Flight> flight, bool store_result, FleetTurn turn) {
  keyed.kernel.input.ir = keyed.owned_ir;
  // Entry points are not part of the key: each waiter's are checked when it
  // is served, so one waiter's wrong name cannot fail the others.
  keyed.kernel.input.entry_points.clear();
  const std::string& key = keyed.key;
  // Finishes the flight: no waiter can join after this, so every later
  // request for `key` finds the stored record instead.
  auto take_waiters = [&] {
    std::lock_guard lock(mu_);
    ForgetFlight(flight);
    return std::move(flight->waiters);
  };
  if (flight->cancel.cancelled()) return;  // every waiter has gone; Cancel forgot the flight

  // A request that missed the store just before the previous flight for this
  // key finished becomes a leader; the record is there now, so serve it.
  bool any_recache = false;
  {
    std::lock_guard lock(mu_);
    any_recache = flight->recache;
  }
  // Unless another daemon of the fleet is compiling it (then wait for its
  // artifact, holding no worker), take the lease: it is released when this
  // returns, after the artifact was stored (published) or the compile
  // failed. Taken before the store is read again, so that an artifact its
  // previous holder published before releasing it is found below.
  struct LeaseRelease {
    FleetLeases* fleet = nullptr;
    const std::string* key = nullptr;
    void Now() {
      if (fleet != nullptr) fleet->Release(*key);
      fleet = nullptr;
    }
    ~LeaseRelease() { Now(); }
  } lease;
  if (store_result && !any_recache && fleet_waits_ != nullptr && !turn.local && !turn.published &&
      !fleet_stopping_) {
    switch (config_.fleet->Acquire(key)) {
      case FleetLeases::Claim::kOwned:
        lease.fleet = config_.fleet.get();  // not a temporary LeaseRelease: its destructor would release
        lease.key = &key;
        spdlog::debug("fleet: took the lease of {}", ShortKey(key));
        break;
      case FleetLeases::Claim::kHeld:
        ParkForFleet(std::move(keyed), std::move(flight), store_result, turn);
        return;
      case FleetLeases::Claim::kUnavailable:
        break;
    }
  }
  if (store_result && !any_recache) {
    Expected<std::optional<store::ArtifactRecord>> got = store_.Get(key);
    if (got.ok() && got->has_value()) {
      ++hits_;  // the leader's; the others were counted as coalesced
      if (turn.published) ++fleet_wait_hits_;
      lease.Now();  // before the answers: other daemons' waiters need not wait for them
      CountSaved((*got)->compile_micros);
      std::vector<Waiter> waiters = take_waiters();
      for (Waiter& w : waiters) w.done(Serve(**got, w, v1::CACHE_STATUS_HIT, keyed.components));
      return;
    }
  }

  if (lease.fleet != nullptr) ++fleet_leases_;
  // A compile begun beside the digest counts from when it began.
  const Clock::time_point t0 = keyed.ahead != nullptr ? keyed.ahead->started : Clock::now();
  bool stage_hit = false;
  std::atomic<int> used_up{0};
  compiler::CallControl control;
  control.cancel = &flight->cancel;
  control.workers_used_up = &used_up;
  control.parse = keyed.kept_parse;
  control.from_ahead = keyed.ahead.get();
  StageWrites stages;
  Expected<compiler::CompileOutput> output = RunStages(keyed, control, &stage_hit, &stages);
  // The stage outputs are written after the answers, on every way out of
  // here; a request that reads one meanwhile waits for it.
  stage_writes_.Begin(stages.keys);
  struct WriteStagesAtEnd {
    Engine* engine;
    const StageWrites* stages;
    ~WriteStagesAtEnd() { engine->WriteStages(*stages); }
  } write_stages_at_end{this, &stages};
  keyed.ahead.reset();  // not taken (a stage was stored): given up now
  const double seconds = SecondsSince(t0);
  budget_.Charge(flight->leader_tenant, used_up.load());
  compile_micros_ += static_cast<std::uint64_t>(seconds * 1e6);
  if (config_.on_compile) {
    // The target without CPU or AMDGPU features: a bounded label.
    std::string target = keyed.target.substr(0, keyed.target.find_first_of("+,"));
    if (const std::size_t features = target.find(':', target.find(':') + 1); features != std::string::npos) {
      target.resize(features);
    }
    config_.on_compile(CompileEvent{target, seconds, output.ok() && !output->payload.empty()});
  }

  if (output.ok() && output->payload.empty()) {
    output = Internal("compiler returned an empty artifact");
  }
  if (!output.ok()) {
    spdlog::info("compile {} {} failed after {:.3f}s: {}", ShortKey(key), keyed.target, seconds,
                 output.status().ToString());
    failures_.Remember(key, output.status());
    std::vector<Waiter> waiters = take_waiters();
    for (Waiter& w : waiters) w.done(Fail(output.status()));
    return;
  }

  ++compiles_;
  if (stage_hit) ++stage_hits_;
  std::vector<std::string> kernels;
  for (const compiler::EntryInfo& e : output->entries) kernels.push_back(e.name);
  store::ArtifactRecord record =
      MakeRecord(key, keyed.target, toolchain_, std::move(output).value(), seconds, keyed.components);
  spdlog::info("{} {} {} in {:.3f}s ({} bytes)", stage_hit ? "stage-hit" : "compiled", ShortKey(key),
               keyed.target, seconds, record.payload.size());
  if (store_result) {
    Status put = store_.Put(record);
    if (!put.ok()) {
      ++store_errors_;
      spdlog::error("store write failed for {}: {} (artifact served, not cached)", ShortKey(key),
                    put.ToString());
    }
  }
  lease.Now();  // published (or not): before the answers
  std::vector<Waiter> waiters = take_waiters();
  // Every waiter's miss reason before any is served: serving one makes this
  // artifact the latest of its lineage.
  std::vector<std::pair<std::string, std::string>> lineages;
  std::vector<std::optional<v1::MissReason>> reasons;
  for (std::size_t i = 0; i < waiters.size(); ++i) {
    // A burst of one kernel asked alike (the usual coalesced compile) has
    // one lineage and one reason: made once.
    if (i > 0 && SameLineage(waiters[i], waiters[i - 1])) {
      lineages.push_back(lineages.back());
      reasons.push_back(reasons.back());
      continue;
    }
    lineages.push_back(LineageOf(waiters[i], keyed.target, kernels));
    reasons.push_back(MissReasonFor(waiters[i], keyed, lineages.back()));
  }
  const v1::CacheStatus first = stage_hit ? v1::CACHE_STATUS_STAGE_HIT : v1::CACHE_STATUS_COMPILED;
  for (std::size_t i = 0; i < waiters.size(); ++i) {
    v1::CompileResult result = Serve(record, waiters[i], i == 0 ? first : v1::CACHE_STATUS_COALESCED,
                                     keyed.components, lineages[i].first);
    if (reasons[i] && result.status() != v1::CACHE_STATUS_ERROR) *result.mutable_miss_reason() = std::move(*reasons[i]);
    waiters[i].done(std::move(result));
  }
}

v1::CompileResult Engine::Serve(const store::ArtifactRecord& record, const Waiter& waiter, v1::CacheStatus status,
                                const std::vector<KeyComponent>& components, const std::string& lineage) {
  v1::CompileResult result;
  result.set_status(status);
  Status s = ToWireArtifact(record, waiter.include_ptx, result.mutable_artifact());
  if (s.ok()) s = CheckEntryPoints(result.artifact(), waiter.descriptor->entry_points());
  if (!s.ok()) return Fail(s);
  if (std::optional<v1::AliasConflict> conflict = RecordAlias(waiter, record, components)) {
    *result.mutable_alias_conflict() = std::move(*conflict);
  }
  // What a read peer compiles is not stored: it is no kernel's latest artifact.
  if (!waiter.descriptor->no_store() && waiter.peer.may_write) {
    std::string id = lineage;
    if (id.empty()) {
      std::vector<std::string> kernels;
      for (const v1::EntryMetadata& e : result.artifact().entries()) kernels.push_back(e.name());
      id = LineageOf(waiter, record.target, kernels).first;
    }
    if (!id.empty()) lineage_.Remember(id, record.key, components);
  }
  return result;
}

v1::CompileResult Engine::Lookup(const v1::FastKeyQuery& query, const Peer& peer, bool include_ptx,
                                 std::shared_ptr<const store::ArtifactRecord>* payload_record) {
  v1::CompileResult result;
  LookupInto(query, peer, include_ptx, &result, payload_record);
  return result;
}

void Engine::LookupInto(const v1::FastKeyQuery& query, const Peer& peer, bool include_ptx, v1::CompileResult* out,
                        std::shared_ptr<const store::ArtifactRecord>* payload_record) {
  if (payload_record != nullptr) payload_record->reset();
  ++requests_;
  auto fail = [&](const Status& status) { *out = Fail(status); };
  if (query.fast_key().empty()) return fail(InvalidArgument("fast_key is empty"));
  if (Status s = CheckFastKey(query.fast_key(), query.namespace_(), config_.limits); !s.ok()) return fail(s);
  Expected<compiler::Target> target = DecodeTarget(query.target());
  if (!target.ok()) return fail(target.status());

  store::AliasKey alias{peer.tenant, query.namespace_(), target->ToString(), query.fast_key()};
  Expected<std::optional<store::AliasValue>> named = store_.GetAliasValue(alias);
  if (!named.ok()) {
    ++store_errors_;
    return fail(named.status().WithContext("alias lookup"));
  }
  // A manifest that does not decode was not written by this code: no alias.
  if (named->has_value() && DecodeManifest((*named)->manifest, out->mutable_dependencies()).ok()) {
    Expected<std::shared_ptr<const store::ArtifactRecord>> record = store_.GetShared((*named)->key);
    if (!record.ok()) {
      ++store_errors_;
      return fail(record.status().WithContext("artifact read"));
    }
    // An alias made under another toolchain (daemon, LLVM, CUDA upgrade) must
    // not serve its old artifact: the client will compile and re-alias.
    if (*record != nullptr && (*record)->toolchain == toolchain_) {
      Status s = ToWireArtifact(**record, include_ptx, out->mutable_artifact(), payload_record == nullptr);
      if (!s.ok()) return fail(s);
      if (payload_record != nullptr) *payload_record = *record;
      ++alias_hits_;
      CountSaved((*record)->compile_micros);
      out->set_status(v1::CACHE_STATUS_ALIAS_HIT);
      return;
    }
  }
  ++misses_;
  out->Clear();
  out->set_status(v1::CACHE_STATUS_MISS);
}

void Engine::ReplayAliasHits(const std::vector<std::string>& keys,
                             const std::vector<std::uint64_t>& compile_micros) {
  requests_ += keys.size();
  alias_hits_ += keys.size();
  alias_hits_replayed_ += keys.size();
  for (std::uint64_t micros : compile_micros) CountSaved(micros);
  store_.RecordAccesses(keys);
}

v1::Explanation Engine::Explain(const v1::KernelDescriptor& descriptor, const Peer& peer) {
  v1::Explanation out;
  bool over_budget = false;
  Expected<Decoded> decoded = Decode(descriptor);
  Expected<Keyed> keyed = decoded.status();
  if (decoded.ok()) keyed = KeyOf(std::move(decoded).value(), peer, budget_.Check(peer.tenant), &over_budget);
  if (!keyed.ok()) {
    if (over_budget) ++budget_refusals_;
    out.mutable_error()->set_code(static_cast<int>(keyed.status().code()));
    out.mutable_error()->set_message(ValidUtf8(keyed.status().message()));
    return out;
  }
  out.set_artifact_key(keyed->key);
  ToWire(keyed->components, out.mutable_components());
  return out;
}

EngineStats Engine::Stats() {
  EngineStats s;
  s.requests = requests_;
  s.compiles = compiles_;
  s.hits = hits_;
  s.alias_hits = alias_hits_;
  s.misses = misses_;
  s.artifact_misses = artifact_misses_;
  s.stage_hits = stage_hits_;
  s.stage_misses = stage_misses_;
  s.coalesced = coalesced_;
  s.errors = errors_;
  s.store_errors = store_errors_;
  s.cancelled = cancelled_;
  s.remembered_failures = remembered_failures_;
  s.queue_rejections = queue_rejections_;
  s.peer_worker_failures = budget_.charged();
  s.peer_failure_refusals = budget_refusals_;
  s.alias_conflicts = alias_conflicts_;
  s.alias_stale = alias_stale_;
  s.fleet_leases = fleet_leases_;
  s.fleet_waits = fleet_waits_count_;
  s.fleet_wait_hits = fleet_wait_hits_;
  s.fleet_wait_timeouts = fleet_wait_timeouts_;
  s.fleet_wait_orphans = fleet_wait_orphans_;
  s.alias_hits_replayed = alias_hits_replayed_;
  s.compile_seconds = static_cast<double>(compile_micros_.load()) / 1e6;
  s.compile_seconds_saved = static_cast<double>(compile_micros_saved_.load()) / 1e6;
  s.workers = pool_.size();
  s.in_flight = pool_.queued_or_running() + keying_pool_.queued_or_running();
  s.uptime_seconds = static_cast<std::uint64_t>(SecondsSince(started_));
  s.toolchain = toolchain_;
  s.cuda_version = compiler_.toolchain().nvjitlink_version;
  s.version = config_.daemon_version;
  return s;
}

}  // namespace qdcache::engine
