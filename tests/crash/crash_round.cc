#include "tests/crash/crash_round.h"

#include <condition_variable>
#include <mutex>
#include <random>
#include <thread>

#include "common/digest.h"
#include "tests/support/subprocess.h"

namespace qdcache::crash {
namespace {

// State shared by the writers and the killer of one round.
class RoundState {
 public:
  explicit RoundState(int writers) : writers_(writers) {}

  void Acknowledged() {
    std::lock_guard lock(mu_);
    ++result_.acknowledged;
    cv_.notify_all();
  }
  void Rechecked() {
    std::lock_guard lock(mu_);
    ++result_.rechecked;
  }
  void Violation(std::string what) {
    std::lock_guard lock(mu_);
    result_.violations.push_back(std::move(what));
  }
  void WriterStopped() {
    std::lock_guard lock(mu_);
    ++stopped_;
    cv_.notify_all();
  }
  // Waits for the first acknowledgement of the round, or for every writer
  // to have stopped; false on timeout.
  bool WaitForFirstAck(std::chrono::seconds timeout) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, timeout,
                        [&] { return result_.acknowledged > 0 || stopped_ == writers_; });
  }
  RoundResult Take() {
    std::lock_guard lock(mu_);
    return std::move(result_);
  }

  std::atomic<bool> killed{false};

 private:
  const int writers_;
  std::mutex mu_;
  std::condition_variable cv_;
  RoundResult result_;  // guarded by mu_
  int stopped_ = 0;     // guarded by mu_
};

std::string Describe(const KernelSpec& spec) {
  return std::string(spec.cuda ? "cuda" : "cpu") + " kernel " + std::to_string(spec.id);
}

// Sends one descriptor. Returns false when the call itself failed: expected
// once the daemon is killed, a violation before.
bool Send(client::Client& client, const KernelSpec& spec, RoundState& state,
          v1::CompileResult* result) {
  v1::CompileRequest request;
  *request.add_kernels() = KernelDescriptorOf(spec);
  Expected<v1::CompileResponse> response = client.Compile(std::move(request));
  if (!response.ok()) {
    if (!state.killed.load()) {
      state.Violation(Describe(spec) +
                      ": call failed before the kill: " + response.status().ToString());
    }
    return false;
  }
  if (response->results_size() != 1) {
    state.Violation(Describe(spec) + ": expected one result");
    return false;
  }
  *result = response->results(0);
  return true;
}

// What an earlier entry may come back as: a guaranteed one only as the hit
// it was; one that may have gone (evicted, damaged, never stored here) also
// compiled again, but always with the same key and bytes.
bool ServedAsAcknowledged(const v1::CompileResult& r, const Acknowledged& a) {
  if (!Carries(r, a)) return false;
  if (r.status() == v1::CACHE_STATUS_HIT) return true;
  return !a.guaranteed &&
         (r.status() == v1::CACHE_STATUS_COMPILED || r.status() == v1::CACHE_STATUS_STAGE_HIT ||
          r.status() == v1::CACHE_STATUS_COALESCED);
}

void Writer(const testing::DaemonProcess& daemon, Oracle& oracle,
            std::atomic<std::uint64_t>& next_id, const RoundConfig& config, int index,
            RoundState& state) {
  std::unique_ptr<client::Client> client = daemon.Connect();
  std::mt19937_64 rng(config.seed * 1000003 + static_cast<std::uint64_t>(index));
  std::bernoulli_distribution recheck(0.2), from_also(1.0 / 3);
  const bool cuda_writer = config.cuda && index % 4 == 3;
  while (!state.killed.load()) {
    std::optional<Acknowledged> earlier;
    if (!config.also_request.empty() && from_also(rng)) {
      std::uniform_int_distribution<std::size_t> pick(0, config.also_request.size() - 1);
      earlier = config.also_request[pick(rng)];
    } else if (recheck(rng)) {
      earlier = oracle.Pick(rng);
    }
    v1::CompileResult result;
    if (earlier) {
      if (!Send(*client, earlier->spec, state, &result)) break;
      if (ServedAsAcknowledged(result, *earlier)) {
        state.Rechecked();
        // Served again: stored now, as durable as any acknowledgement.
        if (!config.evicting) oracle.Guarantee(earlier->spec.id, config.round);
      } else {
        state.Violation(Describe(earlier->spec) + " acknowledged in round " +
                        std::to_string(earlier->round) + (earlier->guaranteed ? "" : " (not guaranteed)") +
                        " as key " + ToHex(earlier->key) + " payload sha256 " + earlier->payload_sha256 +
                        " came back as " + Summary(result));
      }
      continue;
    }
    KernelSpec spec;
    spec.id = next_id.fetch_add(1);
    spec.cuda = cuda_writer;
    spec.fast_key = spec.id % 3 == 0;
    if (!Send(*client, spec, state, &result)) break;
    const bool compiled = result.status() == v1::CACHE_STATUS_COMPILED ||
                          result.status() == v1::CACHE_STATUS_STAGE_HIT;
    if (!compiled || !result.has_artifact() || result.artifact().payload().empty()) {
      state.Violation(Describe(spec) + ": not compiled: " + Summary(result));
      continue;
    }
    oracle.Add(Acknowledged{config.round, spec, result.artifact().artifact_key(),
                            Sha256Hex(result.artifact().payload()), !config.evicting});
    state.Acknowledged();
  }
  state.WriterStopped();
}

// Imports the round's bundle through the CLI, as a CI job would; true when
// the daemon acknowledged the whole import.
bool Import(const testing::DaemonProcess& daemon, const std::string& bundle) {
  const testing::RunResult r =
      testing::Run({testing::CliBinary(), "--socket", daemon.socket_path(), "--no-spawn", "import", bundle});
  return r.exit_code == 0;
}

}  // namespace

RoundResult RunRound(testing::DaemonProcess& daemon, Oracle& oracle,
                     std::atomic<std::uint64_t>& next_id, const RoundConfig& config) {
  RoundState state(config.writers);
  std::vector<std::thread> writers;
  for (int i = 0; i < config.writers; ++i) {
    writers.emplace_back([&, i] { Writer(daemon, oracle, next_id, config, i, state); });
  }
  std::atomic<bool> imported{false};
  std::thread importer;
  if (!config.import_bundle.empty()) {
    importer = std::thread([&] { imported = Import(daemon, config.import_bundle); });
  }
  if (!state.WaitForFirstAck(config.first_ack_timeout)) {
    state.Violation("round " + std::to_string(config.round) + ": nothing acknowledged within " +
                    std::to_string(config.first_ack_timeout.count()) + " s");
  }
  // The random moment of the kill is what this test is about; it is not used
  // to wait for anything.
  std::this_thread::sleep_for(config.kill_delay);
  state.killed.store(true);
  daemon.Kill();
  for (std::thread& t : writers) t.join();
  if (importer.joinable()) importer.join();
  RoundResult result = state.Take();
  if (imported) {
    result.imported = true;
    for (std::uint64_t id : config.import_ids) oracle.Guarantee(id, config.round);
  }
  return result;
}

}  // namespace qdcache::crash
