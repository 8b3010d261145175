// What every scenario of qdcache-bench runs against: a real qdcached on a
// temporary socket and store (also listening on loopback TCP), the baseline
// echo servers in their own process, and clients of each.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "bench/child_process.h"
#include "client/client.h"
#include "common/expected.h"
#include "echo.grpc.pb.h"
#include "tests/support/daemon_process.h"
#include "tests/support/subprocess.h"

namespace qdcache::bench {

struct BenchOptions {
  int rounds = 20;                    // interleaved rounds per latency figure
  int calls_per_round = 100;          // calls per variant and round
  std::vector<std::size_t> warm_kernels = {1000, 10000};  // scenario 2's sets: kernels...
  std::vector<std::size_t> warm_bytes = {4096, 65536};    // ...times artifact sizes
  std::size_t scale_entries = 1000000;  // scenario 6's large store
  std::size_t artifact_bytes = 16384;   // scenarios 1-3: size of the artifact served
  double throughput_seconds = 1.0;    // per variant, thread count and round
  int compile_rounds = 10;            // scenarios 4 and 5
  std::string cuda_sm = "sm_80";
  std::vector<int> only;              // scenario numbers to run (empty: all)
  std::string json_path;              // also write the report here
  std::vector<std::string> daemon_args;  // extra qdcached flags
};

// Binaries of this build (set by CMake).
std::string EchoBinary();
std::string BenchClientBinary();
std::string ToolchainBinary();
std::string CapiClientBinary();        // qdcache-bench-capi (C)
std::string CLibrary();                // this build's libqdcache.so.1
std::string PythonPackageDir();        // the directory holding the qdcache package
std::string PythonWarmStartScript();   // bench/python_warm_start.py

class BenchEnv {
 public:
  // Starts the daemon and the echo servers and connects to each.
  [[nodiscard]] static Expected<std::unique_ptr<BenchEnv>> Start(const BenchOptions& options);

  const BenchOptions options;
  testing::TempDir dir;
  std::unique_ptr<testing::DaemonProcess> daemon;
  std::unique_ptr<ServerProcess> echo;
  std::string raw_echo_path;
  std::unique_ptr<client::Client> uds;       // the daemon over its unix socket (lookups, compiles: the lean transport)
  std::unique_ptr<client::Client> uds_grpc;  // the same, every call over gRPC
  std::unique_ptr<client::Client> tcp;  // over loopback TCP
  std::unique_ptr<bench_echo::Echo::Stub> echo_uds, echo_tcp;

  // A channel as the bench's own clients use (no message size limit that
  // the payloads could reach).
  [[nodiscard]] static std::shared_ptr<grpc::Channel> Channel(const std::string& target);
  // A fresh daemon on its own store under dir (for the scale scenario).
  [[nodiscard]] Expected<std::unique_ptr<testing::DaemonProcess>> StartDaemon(const std::string& name) const;

 private:
  explicit BenchEnv(BenchOptions o) : options(std::move(o)) {}
};

// A descriptor for an x86-64 kernel with a fast key in namespace "bench".
[[nodiscard]] v1::KernelDescriptor CpuDescriptor(const std::string& ir, const std::string& fast_key);
// The kernel a hit scenario serves: x86-64, `index` telling kernels apart,
// an artifact of the options' --artifact-bytes, under `fast_key`.
[[nodiscard]] v1::KernelDescriptor HitKernel(const BenchEnv& env, std::uint64_t index, const std::string& fast_key);
// One Compile of `descriptor`; an error unless the item succeeded.
[[nodiscard]] Expected<v1::CompileResult> CompileOne(client::Client& client,
                                                     const v1::KernelDescriptor& descriptor);
// A single-query Lookup request for `fast_key` ("bench", cpu:x86-64).
[[nodiscard]] v1::LookupRequest LookupOf(const std::string& fast_key);

// Runs bench/python_warm_start.py (`argv`: the interpreter, -S, the script
// and its arguments) as the bench runs Python: this build's package and
// libqdcache.so, byte code cached under `pycache` (as for an installed
// package; the first run writes it). -S (no site hooks): a site that
// imports modules itself (a pyenv interpreter's .pth files import typing)
// would hide import costs that a stock Debian python3 pays. Returns the
// JSON line it prints; an error unless it exits 0 reporting `expect_items`
// items.
[[nodiscard]] Expected<nlohmann::json> RunPythonChild(const std::vector<std::string>& argv, std::size_t expect_items,
                                                      const std::string& pycache);

// The baselines' request for a hit of `reply_bytes`: the bytes of `lookup`
// as the request, a reply of the artifact's size (the shape of a hit).
[[nodiscard]] bench_echo::EchoMessage EchoRequestFor(const v1::LookupRequest& lookup,
                                                     std::size_t reply_bytes);
// One bare gRPC call (10 s deadline); an error unless the reply has the size asked for.
[[nodiscard]] Status EchoCall(bench_echo::Echo::Stub& stub, const bench_echo::EchoMessage& request);

}  // namespace qdcache::bench
