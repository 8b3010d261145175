#include "daemon/engine.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "common/digest.h"
#include "common/utf8.h"
#include "daemon/artifact_key.h"
#include "daemon/artifact_record.h"

namespace qdcache::daemon {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
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
      pool_(config_.workers, config_.max_queue) {}

Engine::~Engine() { Drain(); }

void Engine::Drain() {
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

Expected<Engine::Keyed> Engine::KeyOf(const v1::KernelDescriptor& descriptor, const Peer& peer,
                                       const Status& budget, bool* over_budget) {
  *over_budget = false;
  Keyed k;
  QDC_ASSIGN_OR_RETURN(k.kernel, DecodeKernel(descriptor, config_.limits));
  const bool keep_debug = KeepsDebugInfo(k.kernel);
  const std::string raw = IrDigestMemo::RawKey(k.kernel.input.ir, k.kernel.target, keep_debug);
  // A peer past its failure budget is keyed only from memory: IR it sent
  // before (a hit) needs no worker.
  if (!budget.ok() && !ir_digests_.Find(raw)) {
    *over_budget = true;
    return budget;
  }
  QDC_ASSIGN_OR_RETURN(k.canonical_ir, ir_digests_.FindOrCompute(raw, [&]() -> Expected<Digest> {
    if (std::optional<Status> remembered = failures_.Find(raw)) {
      ++remembered_failures_;
      return *remembered;
    }
    std::atomic<int> used_up{0};
    compiler::CallControl control;
    control.workers_used_up = &used_up;
    Expected<Digest> digest =
        compiler_.CanonicalIrDigest(k.kernel.input.ir, k.kernel.input.target, keep_debug, control);
    budget_.Charge(peer.tenant, used_up.load());
    if (!digest.ok()) failures_.Remember(raw, digest.status());
    return digest;
  }));
  k.components = ArtifactKeyComponents(k.kernel, k.canonical_ir, toolchain_);
  k.key = DigestBytes(KeyFromComponents("artifact", k.components));
  return k;
}

void Engine::Compile(const v1::KernelDescriptor& descriptor, const Peer& peer, bool include_ptx,
                     const std::shared_ptr<Call>& call, CompileDone done) {
  ++requests_;
  if (call != nullptr) {
    std::lock_guard lock(call->mu_);
    if (call->cancelled_) {  // keying a cancelled batch's remaining items is wasted work
      ++cancelled_;
      done(Fail(Cancelled("request cancelled")));
      return;
    }
  }
  // A peer past its failure budget is served what needs no worker; the rest
  // is refused, and the refusal held back a while (RefuseOverBudget).
  std::chrono::milliseconds retry_after{0};
  const Status budget = budget_.Check(peer.tenant, &retry_after);
  bool over_budget = false;
  Expected<Keyed> keyed = KeyOf(descriptor, peer, budget, &over_budget);
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
  Waiter waiter{std::move(done), &descriptor, peer, include_ptx, call};

  if (!no_store && !keyed->kernel.recache) {
    Expected<std::shared_ptr<const store::ArtifactRecord>> got = store_.GetShared(key);
    if (!got.ok()) {
      ++store_errors_;
      spdlog::warn("store read failed for {}: {} (compiling instead)", ShortKey(key),
                   got.status().ToString());
    } else if (*got != nullptr) {
      v1::CompileResult result = Serve(**got, waiter, v1::CACHE_STATUS_HIT);
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

  keyed->owned_ir.assign(keyed->kernel.input.ir);
  Status submitted = pool_.Submit([this, keyed = std::move(keyed).value(), flight, store_result]() mutable {
    RunCompile(std::move(keyed), std::move(flight), store_result);
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

void Engine::PutStage(const Digest& key, const compiler::CompileOutput& output) {
  Status s = store_.PutStage(DigestBytes(key), EncodeStage(output));
  if (!s.ok()) {
    ++store_errors_;
    spdlog::warn("stage write failed: {}", s.ToString());
  }
}

Expected<compiler::CompileOutput> Engine::CompileCuda(const Keyed& k,
                                                      const compiler::CallControl& control,
                                                      bool* stage_hit) {
  const compiler::CompileInput& in = k.kernel.input;
  // no_store: touch no cache at all; recache: distrust what is stored, refill it.
  const bool read_stages = !k.kernel.no_store && !k.kernel.recache;
  const bool write_stages = !k.kernel.no_store && !k.read_only;
  auto read_stage = [&](const Digest& key) -> std::optional<compiler::CompileOutput> {
    if (!read_stages) return std::nullopt;
    Expected<std::optional<std::string>> got = store_.GetStage(DigestBytes(key));
    if (!got.ok() || !got->has_value()) return std::nullopt;
    Expected<compiler::CompileOutput> decoded = DecodeStage(**got);
    if (!decoded.ok()) return std::nullopt;
    return std::move(decoded).value();
  };

  const Digest ptx_key = PtxStageKey(k.canonical_ir, in.target, in.options, toolchain_);
  compiler::CompileOutput ptx;
  if (std::optional<compiler::CompileOutput> cached = read_stage(ptx_key)) {
    ptx = std::move(*cached);
    *stage_hit = true;
  } else {
    if (read_stages) ++stage_misses_;  // looked, found none: codegen runs
    QDC_ASSIGN_OR_RETURN(compiler::PtxOutput fresh, compiler_.CompileToPtx(in, control));
    ptx.ptx = std::move(fresh.ptx);
    ptx.entries = std::move(fresh.entries);
    ptx.log = std::move(fresh.log);
    ptx.timings = fresh.timings;
    if (write_stages) PutStage(ptx_key, ptx);
  }

  const Digest cubin_key = CubinStageKey(ptx.ptx, in.target, in.options, toolchain_);
  if (std::optional<compiler::CompileOutput> cached = read_stage(cubin_key)) {
    *stage_hit = true;
    cached->ptx = std::move(ptx.ptx);
    return std::move(*cached);
  }
  QDC_ASSIGN_OR_RETURN(compiler::CompileOutput out,
                       compiler_.LinkCubin(ptx.ptx, ptx.entries, in.target, in.options, control));
  out.log = ptx.log + out.log;
  out.timings.parse_seconds = ptx.timings.parse_seconds;
  out.timings.optimize_seconds = ptx.timings.optimize_seconds;
  out.timings.codegen_seconds = ptx.timings.codegen_seconds;
  if (write_stages) {
    std::string ptx_text = std::move(out.ptx);  // the PTX has its own stage entry
    PutStage(cubin_key, out);
    out.ptx = std::move(ptx_text);
  }
  return out;
}

void Engine::RunCompile(Keyed keyed, std::shared_ptr<Flight> flight, bool store_result) {
  keyed.kernel.input.ir = keyed.owned_ir;
  // Entry points are not part of the key: each waiter's are checked when it
  // is served, so one waiter's wrong name cannot fail the others.
  keyed.kernel.input.entry_points.clear();
  const std::string& key = keyed.key;
  const DecodedKernel& kernel = keyed.kernel;
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
  if (store_result && !any_recache) {
    Expected<std::optional<store::ArtifactRecord>> got = store_.Get(key);
    if (got.ok() && got->has_value()) {
      ++hits_;  // the leader's; the others were counted as coalesced
      CountSaved((*got)->compile_micros);
      std::vector<Waiter> waiters = take_waiters();
      for (Waiter& w : waiters) w.done(Serve(**got, w, v1::CACHE_STATUS_HIT));
      return;
    }
  }

  const Clock::time_point t0 = Clock::now();
  bool stage_hit = false;
  std::atomic<int> used_up{0};
  compiler::CallControl control;
  control.cancel = &flight->cancel;
  control.workers_used_up = &used_up;
  Expected<compiler::CompileOutput> output = kernel.input.target.kind == compiler::TargetKind::kCuda
                                                 ? CompileCuda(keyed, control, &stage_hit)
                                                 : compiler_.Compile(kernel.input, control);
  const double seconds = SecondsSince(t0);
  budget_.Charge(flight->leader_tenant, used_up.load());
  compile_micros_ += static_cast<std::uint64_t>(seconds * 1e6);
  if (config_.on_compile) {
    const compiler::Target& t = kernel.input.target;
    const std::string target = t.kind == compiler::TargetKind::kCuda ? "cuda:" + t.sm : "cpu:" + t.cpu;
    config_.on_compile(CompileEvent{target, seconds, output.ok() && !output->payload.empty()});
  }

  if (output.ok() && output->payload.empty()) {
    output = Internal("compiler returned an empty artifact");
  }
  if (!output.ok()) {
    spdlog::info("compile {} {} failed after {:.3f}s: {}", ShortKey(key), kernel.target, seconds,
                 output.status().ToString());
    failures_.Remember(key, output.status());
    std::vector<Waiter> waiters = take_waiters();
    for (Waiter& w : waiters) w.done(Fail(output.status()));
    return;
  }

  ++compiles_;
  if (stage_hit) ++stage_hits_;
  store::ArtifactRecord record =
      MakeRecord(key, kernel.target, toolchain_, std::move(output).value(), seconds);
  spdlog::info("{} {} {} in {:.3f}s ({} bytes)", stage_hit ? "stage-hit" : "compiled", ShortKey(key),
               kernel.target, seconds, record.payload.size());
  if (store_result) {
    Status put = store_.Put(record);
    if (!put.ok()) {
      ++store_errors_;
      spdlog::error("store write failed for {}: {} (artifact served, not cached)", ShortKey(key),
                    put.ToString());
    }
  }
  std::vector<Waiter> waiters = take_waiters();
  const v1::CacheStatus first = stage_hit ? v1::CACHE_STATUS_STAGE_HIT : v1::CACHE_STATUS_COMPILED;
  for (std::size_t i = 0; i < waiters.size(); ++i) {
    waiters[i].done(Serve(record, waiters[i], i == 0 ? first : v1::CACHE_STATUS_COALESCED));
  }
}

v1::CompileResult Engine::Serve(const store::ArtifactRecord& record, const Waiter& waiter,
                                v1::CacheStatus status) {
  v1::CompileResult result;
  result.set_status(status);
  Status s = ToWireArtifact(record, waiter.include_ptx, result.mutable_artifact());
  if (s.ok()) s = CheckEntryPoints(result.artifact(), waiter.descriptor->entry_points());
  if (!s.ok()) return Fail(s);
  RecordAlias(waiter, record.target, record.key);
  return result;
}

void Engine::RecordAlias(const Waiter& waiter, const std::string& target, const std::string& key) {
  const v1::KernelDescriptor& d = *waiter.descriptor;
  if (d.fast_key().empty() || d.no_store() || !waiter.peer.may_write) return;
  store::AliasKey alias{waiter.peer.tenant, d.namespace_(), target, d.fast_key()};
  Expected<std::optional<store::ArtifactKey>> existing = store_.GetAlias(alias);
  if (existing.ok() && existing->has_value() && **existing == key) return;
  Status put = store_.PutAlias(alias, key);
  if (!put.ok()) {
    ++store_errors_;
    spdlog::error("alias write failed: {}", put.ToString());
  }
}

v1::CompileResult Engine::Lookup(const v1::FastKeyQuery& query, const Peer& peer, bool include_ptx) {
  ++requests_;
  if (query.fast_key().empty()) return Fail(InvalidArgument("fast_key is empty"));
  if (Status s = CheckFastKey(query.fast_key(), query.namespace_(), config_.limits); !s.ok()) {
    return Fail(s);
  }
  Expected<compiler::Target> target = DecodeTarget(query.target());
  if (!target.ok()) return Fail(target.status());

  store::AliasKey alias{peer.tenant, query.namespace_(), target->ToString(), query.fast_key()};
  Expected<std::optional<store::ArtifactKey>> key = store_.GetAlias(alias);
  if (!key.ok()) {
    ++store_errors_;
    return Fail(key.status().WithContext("alias lookup"));
  }
  v1::CompileResult result;
  if (key->has_value()) {
    Expected<std::shared_ptr<const store::ArtifactRecord>> record = store_.GetShared(**key);
    if (!record.ok()) {
      ++store_errors_;
      return Fail(record.status().WithContext("artifact read"));
    }
    // An alias made under another toolchain (daemon, LLVM, CUDA upgrade) must
    // not serve its old artifact: the client will compile and re-alias.
    if (*record != nullptr && (*record)->toolchain == toolchain_) {
      Status s = ToWireArtifact(**record, include_ptx, result.mutable_artifact());
      if (!s.ok()) return Fail(s);
      ++alias_hits_;
      CountSaved((*record)->compile_micros);
      result.set_status(v1::CACHE_STATUS_ALIAS_HIT);
      return result;
    }
  }
  ++misses_;
  result.set_status(v1::CACHE_STATUS_MISS);
  return result;
}

v1::Explanation Engine::Explain(const v1::KernelDescriptor& descriptor, const Peer& peer) {
  v1::Explanation out;
  bool over_budget = false;
  Expected<Keyed> keyed = KeyOf(descriptor, peer, budget_.Check(peer.tenant), &over_budget);
  if (!keyed.ok()) {
    if (over_budget) ++budget_refusals_;
    out.mutable_error()->set_code(static_cast<int>(keyed.status().code()));
    out.mutable_error()->set_message(ValidUtf8(keyed.status().message()));
    return out;
  }
  out.set_artifact_key(keyed->key);
  for (const KeyComponent& c : keyed->components) {
    v1::KeyComponent* wire = out.add_components();
    wire->set_name(c.name);
    wire->set_value(c.value);
  }
  return out;
}

v1::Stats Engine::Stats() {
  v1::Stats s;
  s.set_compiles(compiles_);
  s.set_hits(hits_);
  s.set_alias_hits(alias_hits_);
  s.set_misses(misses_);
  s.set_coalesced(coalesced_);
  s.set_errors(errors_);
  s.set_requests(requests_);
  s.set_store_errors(store_errors_);
  s.set_compile_seconds(static_cast<double>(compile_micros_.load()) / 1e6);
  store::StoreStats st = store_.Stats();
  s.set_store_artifacts(st.artifacts);
  s.set_store_aliases(st.aliases);
  s.set_store_bytes(st.payload_bytes);
  s.set_corrupt_dropped(st.corrupt_dropped);
  s.set_stage_hits(stage_hits_);
  s.set_evictions(st.evictions);
  s.set_evicted_bytes(st.evicted_bytes);
  s.set_stage_entries(st.stage_entries);
  s.set_stage_bytes(st.stage_bytes);
  s.set_memory_cache_entries(st.memory_cache_entries);
  s.set_memory_cache_bytes(st.memory_cache_bytes);
  s.set_total_bytes(st.total_bytes);
  s.set_max_bytes(config_.max_bytes);
  s.set_toolchain(toolchain_);
  s.set_version(config_.daemon_version);
  s.set_uptime_seconds(static_cast<std::uint64_t>(SecondsSince(started_)));
  s.set_workers(pool_.size());
  s.set_in_flight(pool_.queued_or_running());
  s.set_cancelled(cancelled_);
  s.set_remembered_failures(remembered_failures_);
  s.set_queue_rejections(queue_rejections_);
  s.set_artifact_misses(artifact_misses_);
  s.set_stage_misses(stage_misses_);
  s.set_compile_seconds_saved(static_cast<double>(compile_micros_saved_.load()) / 1e6);
  s.set_peer_worker_failures(budget_.charged());
  s.set_peer_failure_refusals(budget_refusals_);
  if (config_.worker_stats) {
    const compiler::WorkerPoolStats w = config_.worker_stats();
    s.set_worker_starts(w.started);
    s.set_worker_crashes(w.crashed);
    s.set_worker_timeouts(w.timed_out);
    s.set_worker_out_of_memory(w.out_of_memory);
    s.set_worker_kills_cancelled(w.cancelled);
    s.set_workers_live(w.live);
    s.set_worker_respawns_delayed(w.respawns_delayed);
  }
  if (config_.remote != nullptr) {
    const remote::RemoteStats r = config_.remote->Stats();
    s.set_remote_hits(r.hits);
    s.set_remote_misses(r.misses);
    s.set_remote_errors(r.errors);
    s.set_remote_corrupt(r.corrupt);
    s.set_remote_writes(r.writes);
    s.set_remote_write_failures(r.write_failures);
    s.set_remote_skipped(r.skipped);
    s.set_remote_state(r.healthy ? "ok" : "degraded");
  } else {
    s.set_remote_state("off");
  }
  return s;
}

}  // namespace qdcache::daemon
