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
#include <optional>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/cancel_token.h"
#include "compiler/compiler.h"
#include "engine/artifact_key.h"
#include "engine/bundle_export.h"
#include "engine/bundle_import.h"
#include "engine/delayed_answers.h"
#include "engine/descriptor.h"
#include "engine/engine_stats.h"
#include "engine/failure_budget.h"
#include "engine/fleet_leases.h"
#include "engine/fleet_waits.h"
#include "engine/failure_memory.h"
#include "engine/ir_digest_memo.h"
#include "engine/pending_writes.h"
#include "engine/key_memory.h"
#include "engine/thread_pool.h"
#include "qdcache/v1/qdcache.pb.h"
#include "store/artifact_store.h"

namespace qdcache::engine {

// One compile that ran, for EngineConfig::on_compile (e.g. metrics).
struct CompileEvent {
  // The target without CPU features: "cuda:sm_90", "cpu:x86-64". Validated
  // by the time a compile runs, but chosen by clients: a consumer that keys
  // anything by it must bound how many distinct values it keeps.
  std::string_view target;
  double seconds = 0;  // wall time of the compile (all its stages)
  bool ok = false;     // false: it failed or was cancelled
};

// A fast-key alias event, for EngineConfig::on_alias_event (metrics).
enum class AliasEvent {
  kConflict,  // the alias named a different artifact of the same dependencies
  kStale,     // the alias was rebound because its dependencies had changed
};

struct EngineConfig {
  unsigned workers = 1;  // compiles running at once (the compile worker count)
  DescriptorLimits limits;
  std::string daemon_version;
  std::size_t max_queue = 1024;  // compiles waiting beyond those; more: UNAVAILABLE
  // How long an input that crashed / timed out / exhausted a worker is
  // answered from memory instead of compiled again (0: never remembered).
  std::chrono::seconds failure_memory{std::chrono::minutes(10)};
  // How long one compile may run (the workers' timeout; 0: none). A hit
  // counts at most this much time saved (one hour when 0): records from a
  // remote cache or an imported bundle carry whatever their writer put there.
  std::chrono::seconds compile_timeout{0};
  // Called once per compile that ran (after it succeeded or failed; not for
  // hits or coalesced waiters), on the compile thread: keep it cheap and
  // thread-safe. May be empty.
  std::function<void(const CompileEvent&)> on_compile;
  // Worker failures each tenant may cause (failure_budget.h).
  FailureBudgetOptions failure_budget;
  // The weakest alias policy a request gets (KernelDescriptor.alias_policy):
  // OFF lets clients choose; REBIND keeps conflicts counted; STRICT makes
  // every conflict keep the alias where it was.
  v1::AliasPolicy alias_policy_floor = v1::ALIAS_POLICY_OFF;
  // Called once per alias event with the alias's namespace, on the calling
  // thread: keep it cheap and thread-safe. The namespace is the client's:
  // bound what you key by it. May be empty.
  std::function<void(std::string_view ns, AliasEvent event)> on_alias_event;
  // Which imported bundle entries may be stored (bundle_import.h): with
  // trusted keys, only those signed by them.
  signing::SignaturePolicy import_signatures;
  // Fleet-wide single-flight (fleet_leases.h); null: compiles never wait for
  // other daemons. A compile whose lease another daemon holds waits at most
  // fleet_wait for its artifact (then compiles here), checking every
  // fleet_poll.
  std::shared_ptr<FleetLeases> fleet;
  std::chrono::milliseconds fleet_wait{std::chrono::minutes(10)};
  std::chrono::milliseconds fleet_poll{100};
};

// Identity of the caller; aliases are never shared across tenants.
struct Peer {
  std::string tenant;     // "uid:1000", "token:NAME", "cert:CN" (auth/authenticator.h)
  bool may_write = true;  // false (role read): served from the cache or compiled,
                          // but nothing (artifact, stage, alias) is written
};

class Engine {
 private:
  struct Flight;

 public:
  using CompileDone = std::function<void(v1::CompileResult)>;

  // One RPC's claim on the compiles its items wait for (see Cancel).
  class Call {
   private:
    friend class Engine;
    std::mutex mu_;
    bool cancelled_ = false;                     // guarded by mu_
    std::vector<std::weak_ptr<Flight>> flights_;  // guarded by mu_
  };

  // `compiler` and `store` must outlive the engine.
  Engine(compiler::Compiler& compiler, store::ArtifactStore& store, EngineConfig config);
  ~Engine();  // Drain()s
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Answers one descriptor. `done` is called exactly once: on this thread
  // (hit, error), on a keying thread or on a compile thread. Keying that needs
  // a compile worker (LLVM IR whose digest the engine has not memoized) runs
  // on a keying thread, so the caller (a gRPC thread, which also answers
  // hits) never waits for a busy worker; with `caller_may_wait` (a thread
  // that serves this request alone) it runs on this thread, without the
  // hand-off. `descriptor` must stay alive until `done` is called. `call`
  // (may be null) groups the items of one RPC for Cancel.
  void Compile(const v1::KernelDescriptor& descriptor, const Peer& peer, bool include_ptx,
               const std::shared_ptr<Call>& call, CompileDone done, bool caller_may_wait = false);

  // The RPC behind `call` has gone (client cancelled, deadline passed): its
  // waiting items are answered CANCELLED now, later items of it at once, and
  // a compile no other call waits for is stopped (its worker killed).
  void Cancel(const std::shared_ptr<Call>& call);

  // Resolves one fast key: ALIAS_HIT with the artifact, MISS, or ERROR.
  // With `payload_record`, a hit's artifact comes without its payload, and
  // *payload_record is the record whose payload it is (for a transport that
  // sends the bytes from there, uncopied); null otherwise.
  [[nodiscard]] v1::CompileResult Lookup(const v1::FastKeyQuery& query, const Peer& peer, bool include_ptx,
                                         std::shared_ptr<const store::ArtifactRecord>* payload_record = nullptr);
  // The same, written into `*out` (empty), which may live on an arena: a
  // batch's answer is then built without a heap allocation per field.
  void LookupInto(const v1::FastKeyQuery& query, const Peer& peer, bool include_ptx, v1::CompileResult* out,
                  std::shared_ptr<const store::ArtifactRecord>* payload_record = nullptr);
  // What every Lookup answer depends on besides its request and peer (the
  // store's Generation): an answer whose items were all hits, taken with
  // equal readings before and after it, may be served again while the
  // reading stays the same. nullopt: no answer may be served again.
  [[nodiscard]] std::optional<std::uint64_t> LookupGeneration() const { return store_.Generation(); }
  // Counts an all-hit answer served again as LookupInto counted it when it
  // was made: a request and an alias hit per item (`keys[i]`, the artifact
  // it served), the compile time each saves (`compile_micros[i]`, its
  // record's), and a read of each artifact (access times).
  void ReplayAliasHits(const std::vector<std::string>& keys, const std::vector<std::uint64_t>& compile_micros);

  // The artifact key of a descriptor and every component that went into it.
  // Keying may need a compile worker: it is charged to `peer` as compiles are.
  [[nodiscard]] v1::Explanation Explain(const v1::KernelDescriptor& descriptor, const Peer& peer);

  // Stored artifacts explained from their keys (the components their records
  // keep), two compared; or `tenant`'s alias, what it names and the
  // conflicts remembered for it. INVALID_ARGUMENT for a malformed request.
  [[nodiscard]] Expected<v1::ExplainStoredResponse> ExplainStored(const v1::ExplainStoredRequest& request,
                                                                  const std::string& tenant);

  // Store administration (see ArtifactStore).
  // Artifacts (or, with request.aliases, `tenant`'s aliases) matching the
  // request's filters; INVALID_ARGUMENT for a bad target or key prefix.
  [[nodiscard]] Expected<v1::ListResponse> List(const v1::ListRequest& request, const std::string& tenant);
  [[nodiscard]] Expected<v1::Artifact> Inspect(const std::string& artifact_key, bool include_ptx);
  [[nodiscard]] Expected<v1::EvictResponse> Evict(const v1::EvictRequest& request);
  [[nodiscard]] Expected<v1::VerifyResponse> Verify();
  // Export and import (bundle_export.h, bundle_import.h). The exporter
  // holds a store snapshot: it must be destroyed before the engine.
  [[nodiscard]] Expected<std::unique_ptr<BundleExporter>> StartExport(ExportScope scope);
  // Aliases go under `tenant` unless `keep_tenants`. Outlived by the engine.
  [[nodiscard]] std::unique_ptr<BundleImporter> StartImport(const std::string& tenant, bool keep_tenants);
  // Whether imports store only entries signed by a trusted key
  // (EngineConfig::import_signatures checks, and requires signatures).
  [[nodiscard]] bool import_needs_signatures() const {
    return config_.import_signatures.checks() && config_.import_signatures.require;
  }

  [[nodiscard]] EngineStats Stats();
  // Zeroes the engine's counters (compiles, hits, misses, errors, ...). The
  // store's, the worker pool's and a remote tier's are not the engine's (the
  // daemon resets the remote tier's itself).
  void ResetStats();
  [[nodiscard]] const std::string& toolchain_fingerprint() const { return toolchain_; }
  [[nodiscard]] const DescriptorLimits& limits() const { return config_.limits; }

  // Finishes queued and running compiles; later Compile() calls that need a
  // compile are answered UNAVAILABLE.
  void Drain();
  // The first step of Drain, to take before the transport stops taking
  // calls: compiles parked for another daemon's lease are compiled here at
  // once (not left waiting on a host that may not finish before the drain
  // deadline), and no compile takes a lease any more. Idempotent.
  void StopFleetWaits();

 private:
  struct Waiter {
    CompileDone done;
    const v1::KernelDescriptor* descriptor;
    Peer peer;
    bool include_ptx;
    std::shared_ptr<Call> call;  // may be null
    std::string manifest;        // its dependencies' (DecodedKernel::manifest)
  };
  struct Flight {
    Flight(std::string k, std::string leader) : key(std::move(k)), leader_tenant(std::move(leader)) {}
    const std::string key;        // the artifact key; empty for a no_store flight
    const std::string leader_tenant;  // whose budget the workers it uses up are charged to
    std::vector<Waiter> waiters;  // guarded by Engine::mu_
    bool recache = false;         // some waiter distrusts the store; guarded by Engine::mu_
    CancelToken cancel;           // fired when every waiter has gone
  };
  // A decoded descriptor with its canonical IR digest and key components.
  struct Keyed {
    DecodedKernel kernel;
    std::string target;  // kernel.input.target's canonical text
    Digest canonical_ir{};  // the canonical input's digest (LLVM IR, PTX, ...)
    // A kind made canonical in the daemon (PTX): that text, which is what
    // the first stage compiles. Empty for LLVM IR.
    std::string canonical_text;
    std::vector<KeyComponent> components;
    std::string key;  // 32 raw bytes
    bool read_only = false;  // the peer may not write: no stage outputs either
    // The IR, owned, once a compile is queued: the request that brought it
    // may be answered (cancelled) and freed before the compile runs.
    // RunCompile points kernel.input.ir at it.
    std::string owned_ir;
    // Where the digest's parse of the IR is kept for its compile
    // (CallControl::kept_parse; 0: nowhere).
    std::uint64_t kept_parse = 0;
    // The miss's compile, begun beside the digest (CallControl::ahead;
    // null: none). Only the leader of the flight for its key takes it (the
    // digest's own request, nearly always); any other gives it up.
    std::shared_ptr<compiler::CompileAhead> ahead;
  };

  // A decoded descriptor, and for a kind keyed through a worker (LLVM IR)
  // the memo key of its raw bytes (IrDigestMemo::RawKey; "" otherwise).
  struct Decoded {
    DecodedKernel kernel;
    std::string raw;
    std::optional<Digest> memoized;  // raw's digest, as KeyingNeedsWorker found it
  };
  // Decodes `descriptor` (decoded.kernel views its bytes).
  [[nodiscard]] Expected<Decoded> Decode(const v1::KernelDescriptor& descriptor) const;
  // Keys a decoded descriptor. A digest that needs a worker is charged to
  // `peer`, or refused with `budget` when that (budget_.Check) is not OK;
  // *over_budget says that was the reason.
  [[nodiscard]] Expected<Keyed> KeyOf(Decoded decoded, const Peer& peer, const Status& budget,
                                      bool* over_budget);
  // Whether keying needs a compile worker: LLVM IR whose canonical digest
  // (or the failure to make one) is not remembered. Sets decoded.memoized,
  // which KeyOf then uses instead of looking again.
  [[nodiscard]] bool KeyingNeedsWorker(Decoded& decoded);
  // Answers `done` CANCELLED when `call` (may be null) is cancelled: true then.
  bool AnswerIfCancelled(const std::shared_ptr<Call>& call, CompileDone& done);
  // Compile() from the decoded descriptor on: keys it, then serves, joins or
  // starts its compile.
  void CompileDecoded(Decoded decoded, const v1::KernelDescriptor& descriptor, const Peer& peer,
                      bool include_ptx, const std::shared_ptr<Call>& call, CompileDone done);
  // Answers `done` with the budget's refusal, after `retry_after` (at most a
  // second) on tarpit_.
  void RefuseOverBudget(const Status& budget, std::chrono::milliseconds retry_after, CompileDone done);
  // Runs the stages the kernel's input kind runs for its target family
  // (compiler/input_kind.h), each cached one through the stage cache; sets
  // *stage_hit when one was reused and counts a codegen stage that had to run
  // in stage_misses_.
  // The stage outputs it makes are not written: they are left in *writes.
  struct StageWrites {
    std::vector<std::string> keys;    // DigestBytes of the stage keys
    std::vector<std::string> values;  // EncodeStage of their outputs
  };
  [[nodiscard]] Expected<compiler::CompileOutput> RunStages(const Keyed& keyed,
                                                            const compiler::CallControl& control,
                                                            bool* stage_hit, StageWrites* writes);
  // Writes them, and ends them in stage_writes_.
  void WriteStages(const StageWrites& writes);
  // Adds a served record's compile time to the time saved, capped (see
  // EngineConfig::compile_timeout) so that a bogus value cannot wrap the sum.
  void CountSaved(std::uint64_t compile_micros);

  // Serves `record` (keyed from `components`) to a waiter: entry-point
  // check, alias upkeep (a conflict goes in the result), wire artifact; and
  // makes it the latest artifact of the waiter's kernel lineage (`lineage`:
  // its id when the caller has it, else found from the artifact's kernels).
  v1::CompileResult Serve(const store::ArtifactRecord& record, const Waiter& waiter, v1::CacheStatus status,
                          const std::vector<KeyComponent>& components, const std::string& lineage = {});
  // Points the waiter's fast key at `record` unless its policy says
  // otherwise; the conflict, when the alias named another artifact
  // (engine_aliases.cc).
  std::optional<v1::AliasConflict> RecordAlias(const Waiter& waiter, const store::ArtifactRecord& record,
                                               const std::vector<KeyComponent>& components);
  std::optional<v1::AliasConflict> Conflict(const store::AliasKey& alias, const std::string& previous_key,
                                            const store::ArtifactRecord& record,
                                            const std::vector<KeyComponent>& components, v1::AliasPolicy policy);
  [[nodiscard]] v1::AliasPolicy EffectivePolicy(v1::AliasPolicy requested) const;
  // The id of the waiter's kernel lineage (key_memory.h) and its basis
  // ("fast_key", "entry_points"); empty when it has none. `kernels`: the
  // artifact's kernel names.
  std::pair<std::string, std::string> LineageOf(const Waiter& waiter, std::string_view target,
                                                const std::vector<std::string>& kernels) const;
  // Whether LineageOf (and so MissReasonFor) answers alike for `a` and `b`
  // of one compile: the same tenant, namespace, fast key and entry points.
  static bool SameLineage(const Waiter& a, const Waiter& b);
  // Why the waiter's kernel missed, from the latest artifact of `lineage`.
  std::optional<v1::MissReason> MissReasonFor(const Waiter& waiter, const Keyed& keyed,
                                              const std::pair<std::string, std::string>& lineage);
  void Notify(std::string_view ns, AliasEvent event);
  // Fills `out` from the stored record under `key`; its components when known.
  std::optional<std::vector<KeyComponent>> DescribeStored(const std::string& key, v1::StoredExplanation* out);
  // Where a flight stands with the fleet's leases (fleet_leases.h).
  struct FleetTurn {
    bool waited = false;     // it was parked once (counted once in fleet_waits)
    bool published = false;  // resumed because the artifact appeared
    bool local = false;      // compile here without a lease (the wait timed out)
    std::chrono::steady_clock::time_point deadline{};
  };
  void RunCompile(Keyed keyed, std::shared_ptr<Flight> flight, bool store_result, FleetTurn turn);
  // Queues RunCompile on pool_; when the queue refuses, answers the flight's
  // waiters with the refusal.
  void SubmitCompile(Keyed keyed, std::shared_ptr<Flight> flight, bool store_result, FleetTurn turn);
  // Parks a flight whose lease another daemon holds (fleet_waits_).
  void ParkForFleet(Keyed keyed, std::shared_ptr<Flight> flight, bool store_result, FleetTurn turn);
  v1::CompileResult Fail(const Status& status);
  // Removes `flight` from in_flight_ if it is still the entry for its key. Needs mu_.
  void ForgetFlight(const std::shared_ptr<Flight>& flight);

  compiler::Compiler& compiler_;
  store::ArtifactStore& store_;
  const EngineConfig config_;
  const std::string toolchain_;
  const std::chrono::steady_clock::time_point started_;

  IrDigestMemo ir_digests_{8192};
  // Stage outputs a compile writes after its answers (RunCompile).
  PendingWrites stage_writes_;
  KernelLineage lineage_{8192};
  AliasHistory alias_history_{1024};
  FailureMemory failures_;
  FailureBudget budget_;
  DelayedAnswers tarpit_;  // budget refusals, held back

  std::mutex mu_;
  std::unordered_map<std::string, std::shared_ptr<Flight>> in_flight_;  // guarded by mu_

  std::atomic<std::uint64_t> compiles_{0}, hits_{0}, alias_hits_{0}, misses_{0}, coalesced_{0},
      errors_{0}, requests_{0}, store_errors_{0}, compile_micros_{0}, stage_hits_{0},
      cancelled_{0}, remembered_failures_{0}, queue_rejections_{0}, artifact_misses_{0}, stage_misses_{0},
      compile_micros_saved_{0}, budget_refusals_{0}, alias_conflicts_{0}, alias_stale_{0},
      fleet_leases_{0}, fleet_waits_count_{0}, fleet_wait_hits_{0}, fleet_wait_timeouts_{0},
      fleet_wait_orphans_{0}, alias_hits_replayed_{0};

  ThreadPool pool_;  // compiles
  // Keying that waits for a worker (Compile). Declared after pool_, so it is
  // destroyed (drained) first: its tasks may still submit compiles.
  ThreadPool keying_pool_;
  // Parked flights (config_.fleet set), stopped by Drain before pool_ stops
  // taking tasks; once fleet_stopping_, compiles take no more leases.
  std::unique_ptr<FleetWaits> fleet_waits_;
  std::atomic<bool> fleet_stopping_{false};
};

}  // namespace qdcache::engine
