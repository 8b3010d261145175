// One round of the crash test: writer threads compile distinct kernels (and
// re-request ones acknowledged earlier) against a running daemon, each
// acknowledged artifact goes into the oracle, and after the first
// acknowledgement of the round plus a random delay the daemon is SIGKILLed.
// Some rounds also import a bundle while they run (the import is
// acknowledged when the call returns), or re-request kernels that only a
// remote tier holds (served through a back-fill into the local store).
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
  // The daemon runs under a byte cap: eviction may remove anything, so no
  // acknowledgement of this round guarantees survival.
  bool evicting = false;
  // Entries that writers also re-request, one request in three (the kernels
  // of a remote tier the daemon reads through).
  std::vector<Acknowledged> also_request;
  // A bundle file to import meanwhile (empty: none), and its kernels: once
  // the import is acknowledged they are guaranteed.
  std::string import_bundle;
  std::vector<std::uint64_t> import_ids;
};

struct RoundResult {
  std::uint64_t acknowledged = 0;  // new artifacts acknowledged in this round
  std::uint64_t rechecked = 0;     // earlier artifacts served again, byte-identical
  bool imported = false;           // the bundle's import was acknowledged
  std::vector<std::string> violations;
};

// Runs one round against `daemon`, which must be running; returns with it
// killed. `next_id` hands out kernel ids, never reused across rounds.
[[nodiscard]] RoundResult RunRound(testing::DaemonProcess& daemon, Oracle& oracle,
                                   std::atomic<std::uint64_t>& next_id, const RoundConfig& config);

}  // namespace qdcache::crash
