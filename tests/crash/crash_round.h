// One round of the crash test: writer threads compile distinct kernels (and
// re-request ones acknowledged earlier) against a running daemon, each
// acknowledged artifact goes into the oracle, and after the first
// acknowledgement of the round plus a random delay the daemon is SIGKILLed.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "tests/crash/crash_oracle.h"
#include "tests/support/daemon_process.h"

namespace qdcache::crash {

struct RoundConfig {
  int round = 0;
  int writers = 4;
  bool cuda = false;                        // one writer in four compiles CUDA kernels
  std::chrono::milliseconds kill_delay{0};  // after the round's first acknowledgement
  std::uint64_t seed = 0;                   // for the writers' choices
  // A round whose daemon acknowledges nothing for this long has failed.
  std::chrono::seconds first_ack_timeout{300};
};

struct RoundResult {
  std::uint64_t acknowledged = 0;  // new artifacts acknowledged in this round
  std::uint64_t rechecked = 0;     // earlier artifacts served again, byte-identical
  std::vector<std::string> violations;
};

// Runs one round against `daemon`, which must be running; returns with it
// killed. `next_id` hands out kernel ids, never reused across rounds.
[[nodiscard]] RoundResult RunRound(testing::DaemonProcess& daemon, Oracle& oracle,
                                   std::atomic<std::uint64_t>& next_id, const RoundConfig& config);

}  // namespace qdcache::crash
