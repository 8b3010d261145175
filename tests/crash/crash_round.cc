#include "tests/crash/crash_round.h"

#include <condition_variable>
#include <mutex>
#include <random>
#include <thread>

#include "common/digest.h"

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

void Writer(const testing::DaemonProcess& daemon, Oracle& oracle,
            std::atomic<std::uint64_t>& next_id, const RoundConfig& config, int index,
            RoundState& state) {
  std::unique_ptr<client::Client> client = daemon.Connect();
  std::mt19937_64 rng(config.seed * 1000003 + static_cast<std::uint64_t>(index));
  std::bernoulli_distribution recheck(0.2);
  const bool cuda_writer = config.cuda && index % 4 == 3;
  while (!state.killed.load()) {
    std::optional<Acknowledged> earlier;
    if (recheck(rng)) earlier = oracle.Pick(rng);
    v1::CompileResult result;
    if (earlier) {
      if (!Send(*client, earlier->spec, state, &result)) break;
      const bool same = result.status() == v1::CACHE_STATUS_HIT && result.has_artifact() &&
                        result.artifact().artifact_key() == earlier->key &&
                        Sha256Hex(result.artifact().payload()) == earlier->payload_sha256;
      if (same) {
        state.Rechecked();
      } else {
        state.Violation(Describe(earlier->spec) + " acknowledged in round " +
                        std::to_string(earlier->round) + " as key " + ToHex(earlier->key) +
                        " payload sha256 " + earlier->payload_sha256 + " came back as " +
                        Summary(result));
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
                            Sha256Hex(result.artifact().payload())});
    state.Acknowledged();
  }
  state.WriterStopped();
}

}  // namespace

RoundResult RunRound(testing::DaemonProcess& daemon, Oracle& oracle,
                     std::atomic<std::uint64_t>& next_id, const RoundConfig& config) {
  RoundState state(config.writers);
  std::vector<std::thread> writers;
  for (int i = 0; i < config.writers; ++i) {
    writers.emplace_back([&, i] { Writer(daemon, oracle, next_id, config, i, state); });
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
  return state.Take();
}

}  // namespace qdcache::crash
