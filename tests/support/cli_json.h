// Running the `qdcache` CLI against a test daemon and reading its JSON.
// Header-only because it asserts with Catch.
#pragma once

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/daemon_process.h"
#include "tests/support/subprocess.h"

namespace qdcache::testing {

inline RunResult Cli(const DaemonProcess& daemon, std::vector<std::string> args) {
  args.insert(args.begin(), {CliBinary(), "--socket", daemon.socket_path()});
  return Run(args);
}

// stdout of a successful run, parsed.
inline nlohmann::json Json(const RunResult& r) {
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(r.out);
}

}  // namespace qdcache::testing

// Skips a test (with a warning) in a build without the CUDA Toolkit.
#define QDC_REQUIRE_CUDA_BUILT()                                    \
  do {                                                              \
    if (!::qdcache::testing::CudaBuilt()) {                         \
      WARN("built without the CUDA Toolkit: skipping");             \
      return;                                                       \
    }                                                               \
  } while (0)
