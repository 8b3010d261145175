// A cold stampede on a fleet of daemons: many clients per daemon asking at
// once for the same set of distinct CPU kernels, each client in its own
// order; what every client got back, for the fleet tests.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "qdcache/v1/qdcache.pb.h"
#include "tests/support/daemon_process.h"

namespace qdcache::testing {

// Distinct CPU kernel `n` of a stampede, with a fast key; `salt` makes a
// fresh set (kernels of different salts never share a key).
v1::KernelDescriptor StampedeKernel(int n, int salt = 0);

struct StampedeResult {
  std::map<int, std::set<std::string>> payloads;  // kernel -> the payloads clients got
  int answers = 0;
  int failures = 0;  // answers that were not COMPILED, HIT or COALESCED
  std::string first_failure;
};

// `clients` threads per daemon ask for kernels 0..kernels-1 of `salt`, one
// call per kernel. `after_answer` (may be empty) runs after every answer,
// with the number of answers so far, on the client's thread.
StampedeResult RunStampede(const std::vector<DaemonProcess*>& daemons, int clients, int kernels, int salt = 0,
                           const std::function<void(int answers)>& after_answer = {});

}  // namespace qdcache::testing
