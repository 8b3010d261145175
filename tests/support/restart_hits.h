// A check several input kinds' tests share: after a daemon restart, each
// kernel is a hit with the bytes it had and nothing compiles. Header-only
// because it asserts with Catch.
#pragma once

#include <catch2/catch.hpp>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/daemon_process.h"
#include "tests/support/kernels.h"

namespace qdcache::testing {

// Stops and starts `daemon`, then sends each descriptor: a hit with its bytes.
inline void CheckHitsAfterRestart(DaemonProcess& daemon,
                                  const std::vector<std::pair<v1::KernelDescriptor, std::string>>& compiled) {
  REQUIRE(daemon.Stop() == 0);
  daemon.Start();
  auto client = daemon.Connect();
  for (const auto& [descriptor, bytes] : compiled) {
    v1::CompileResult after = CompileOne(*client, descriptor);
    INFO(after.error().message());
    REQUIRE(after.status() == v1::CACHE_STATUS_HIT);
    CHECK(after.artifact().payload() == bytes);
  }
  auto stats = client->Stats();
  REQUIRE(stats.ok());
  CHECK(stats->compiles() == 0);
}

}  // namespace qdcache::testing
