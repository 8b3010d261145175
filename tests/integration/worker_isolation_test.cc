// Compile workers: a crash, a compile past the time limit, a memory blow-up
// or a cancelled request costs one worker process, never the daemon; the
// daemon's own process never runs LLVM on client input.
#include <signal.h>
#include <sys/syscall.h>
#include <poll.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <sstream>
#include <thread>
#include <vector>

#include "client/wire_target.h"
#include "tests/support/cli_json.h"
#include "tests/support/daemon_process.h"
#include "tests/support/kernels.h"
#include "tests/support/subprocess.h"

using namespace qdcache;
using namespace qdcache::testing;

namespace {


v1::CompileResult CompileWith(const DaemonProcess& daemon, const v1::KernelDescriptor& d,
                              std::chrono::milliseconds timeout, Status* rpc_status = nullptr,
                              bool lean = true) {
  client::ClientOptions options;
  options.socket_path = daemon.socket_path();
  options.timeout = timeout;
  options.lean = lean;
  // Neither Catch assertions nor exceptions here: callers run it on threads.
  auto c = client::Client::Connect(options);
  if (!c.ok()) {
    if (rpc_status != nullptr) *rpc_status = c.status();
    return {};
  }
  v1::CompileRequest request;
  *request.add_kernels() = d;
  auto response = (*c)->Compile(std::move(request));
  if (rpc_status != nullptr) *rpc_status = response.status();
  if (!response.ok() || response->results_size() != 1) return {};
  return response->results(0);
}

// Worker processes of the daemon: the children of any of its threads (a
// supervisor thread starts them).
std::vector<pid_t> Children(pid_t pid) {
  std::vector<pid_t> out;
  const std::string tasks = "/proc/" + std::to_string(pid) + "/task";
  for (const auto& task : std::filesystem::directory_iterator(tasks)) {
    std::ifstream in(task.path() / "children");
    pid_t child;
    while (in >> child) out.push_back(child);
  }
  return out;
}

void CheckGoodCompile(const DaemonProcess& daemon) {
  v1::CompileResult ok = CompileOne(*daemon.Connect(), Descriptor("cpu/saxpy.ll", "cpu:x86-64"));
  CHECK(ok.has_artifact());
  CHECK(IsX86SharedObject(ok.artifact().payload()));
}

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif

// What a crashed worker's error says. A sanitizer runtime turns the
// worker's SIGSEGV into its report: AddressSanitizer's then ends it with
// SIGABRT; ThreadSanitizer's reports the allocations of LLVM's crash
// handler and ends it with its own exit status (66).
#if defined(__SANITIZE_THREAD__)
constexpr const char* kCrashed = "compiler crashed";
#elif defined(__SANITIZE_ADDRESS__)
constexpr const char* kCrashed = "compiler crashed (SIG";
#else
constexpr const char* kCrashed = "compiler crashed (SIGSEGV)";
#endif

}  // namespace

TEST_CASE("an input that crashes LLVM costs one worker: the daemon and other compiles carry on",
          "[integration][workers]") {
  QDC_REQUIRE_CUDA_BUILT();
  TempDir dir;
  DaemonProcess daemon(dir.path(), {"--workers", "2"});
  daemon.Start();
  const pid_t pid = daemon.pid();
  const v1::KernelDescriptor crasher = Descriptor("crash/nvptx_fp128_arg.ll", "cuda:sm_80");

  // Well-formed compiles running at the same time all succeed.
  const char* good[] = {"cpu/saxpy.ll", "cpu/block_reduce.ll", "cpu/stencil2d.ll"};
  std::vector<v1::CompileResult> results(3);
  v1::CompileResult crashed;
  {
    std::vector<std::thread> threads;
    // CompileWith neither throws nor asserts: a daemon taken down by the
    // crasher shows up as failed results below, not as std::terminate.
    const auto kLong = std::chrono::minutes(5);
    for (int i = 0; i < 3; ++i) {
      threads.emplace_back([&, i] { results[i] = CompileWith(daemon, Descriptor(good[i], "cpu:x86-64"), kLong); });
    }
    threads.emplace_back([&] { crashed = CompileWith(daemon, crasher, kLong); });
    for (auto& t : threads) t.join();
  }
  for (const auto& r : results) CHECK(r.status() == v1::CACHE_STATUS_COMPILED);
  REQUIRE(crashed.status() == v1::CACHE_STATUS_ERROR);
  CHECK(crashed.error().code() == static_cast<int>(Code::kInternal));
  CHECK_THAT(crashed.error().message(), Catch::Contains(kCrashed));

  // A retry is answered from memory: no second worker is sacrificed.
  v1::CompileResult again = CompileOne(*daemon.Connect(), crasher);
  CHECK(again.error().code() == static_cast<int>(Code::kInternal));
  CHECK_THAT(again.error().message(), Catch::Contains("remembered"));

  v1::Stats s = StatsOf(daemon);
  CHECK(s.worker_crashes() == 1);
  CHECK(s.remembered_failures() == 1);
  CHECK(s.compiles() == 3);
  CHECK(s.store_artifacts() == 3);
  CheckGoodCompile(daemon);
  CHECK(daemon.Alive());  // the daemon started above, never restarted
  CHECK(daemon.pid() == pid);
  CHECK(daemon.Stop() == 0);
  if (!kSanitized) CHECK_THAT(daemon.log(), Catch::Contains("FoldConstantArithmetic"));  // its stack trace
}

TEST_CASE("a compile past the time limit is killed and answered DEADLINE_EXCEEDED",
          "[integration][workers]") {
  TempDir dir;
  DaemonProcess daemon(dir.path(), {"--workers", "1", "--compile-timeout", "1s"});
  daemon.Start();
  v1::CompileResult r = CompileOne(*daemon.Connect(), SlowCpuKernel(40000));
  REQUIRE(r.status() == v1::CACHE_STATUS_ERROR);
  CHECK(r.error().code() == static_cast<int>(Code::kDeadlineExceeded));
  CHECK_THAT(r.error().message(), Catch::Contains("time limit of 1 s"));
  CheckGoodCompile(daemon);  // the one compile worker was replaced
  v1::Stats s = StatsOf(daemon);
  CHECK(s.worker_timeouts() == 1);
  CHECK(s.store_artifacts() == 1);
  CHECK(daemon.Stop() == 0);
}

TEST_CASE("a compile past the worker memory limit is answered RESOURCE_EXHAUSTED",
          "[integration][workers]") {
  if (kSanitized) {
    WARN("sanitizer build: workers run without an address-space limit; skipping");
    return;
  }
  TempDir dir;
  DaemonProcess daemon(dir.path(), {"--workers", "1", "--worker-memory", "512M"});
  daemon.Start();
  // A few bytes of IR whose object file holds a 256 MiB initializer.
  v1::KernelDescriptor d;
  d.set_ir(
      "@g = global <268435456 x i8> splat (i8 1)\n"
      "define i8 @f(i64 %i) {\n  %p = getelementptr i8, ptr @g, i64 %i\n"
      "  %v = load i8, ptr %p\n  ret i8 %v\n}\n");
  *d.mutable_target() = *client::ParseWireTarget("cpu:x86-64");
  d.mutable_options()->set_opt_level(0);
  v1::CompileResult r = CompileOne(*daemon.Connect(), d);
  REQUIRE(r.status() == v1::CACHE_STATUS_ERROR);
  CHECK(r.error().code() == static_cast<int>(Code::kResourceExhausted));
  CHECK_THAT(r.error().message(), Catch::Contains("memory limit of 512 MiB"));
  CheckGoodCompile(daemon);
  CHECK(StatsOf(daemon).worker_out_of_memory() == 1);
  CHECK(daemon.Stop() == 0);
}

TEST_CASE("a request whose deadline passes stops its compile", "[integration][workers]") {
  // Over the lean transport the client closes its connection; over gRPC the
  // call is cancelled. Either way the daemon stops the compile.
  const bool lean = GENERATE(true, false);
  INFO((lean ? "lean transport" : "gRPC"));
  TempDir dir;
  DaemonProcess daemon(dir.path(), {"--workers", "1"});
  daemon.Start();
  Status rpc;
  // 5 s: room for keying the IR (a digest worker parses it) even under
  // sanitizers, far below the ~25 s the compile itself takes.
  (void)CompileWith(daemon, SlowCpuKernel(40000), std::chrono::seconds(5), &rpc, lean);
  CHECK(rpc.code() == Code::kDeadlineExceeded);
  // The single compile worker is free again only once the abandoned compile
  // was killed: this compile finishing proves it did not run on.
  CheckGoodCompile(daemon);
  v1::Stats s = StatsOf(daemon);
  CHECK(s.worker_kills_cancelled() == 1);
  CHECK(s.worker_timeouts() == 0);
  CHECK(s.cancelled() == 1);
  CHECK(s.store_artifacts() == 1);
  CHECK(daemon.Stop() == 0);
}

TEST_CASE("compile workers die with a daemon killed by SIGKILL", "[integration][workers]") {
  TempDir dir;
  DaemonProcess daemon(dir.path(), {"--workers", "2"});
  daemon.Start();
  std::vector<pid_t> workers = Children(daemon.pid());
  REQUIRE(workers.size() == 3);  // 2 compile workers + 1 digest worker
  std::vector<int> pidfds;
  for (pid_t w : workers) {
    int fd = static_cast<int>(::syscall(SYS_pidfd_open, w, 0));
    REQUIRE(fd >= 0);
    pidfds.push_back(fd);
  }
  daemon.Kill();
  for (int fd : pidfds) {
    pollfd p{fd, POLLIN, 0};
    CHECK(::poll(&p, 1, 30'000) == 1);  // readable once the process has exited
    ::close(fd);
  }
}

TEST_CASE("the per-peer request limit answers RESOURCE_EXHAUSTED naming the limit",
          "[integration][workers]") {
  TempDir dir;
  DaemonProcess daemon(dir.path(), {"--workers", "1", "--max-peer-requests", "1"});
  daemon.Start();
  Status slow_rpc;
  std::vector<std::thread> slow;
  slow.emplace_back([&] {
    // A Stats request below may hold the tenant's one slot just when the
    // compile arrives: refused then, the compile asks again.
    do {
      (void)CompileWith(daemon, SlowCpuKernel(40000), std::chrono::seconds(120), &slow_rpc);
    } while (slow_rpc.code() == Code::kResourceExhausted);
  });
  // Until the slow compile is admitted, stats requests pass; then the
  // tenant's one slot is taken.
  Expected<v1::Stats> refused = v1::Stats();
  auto client = daemon.Connect();
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (refused.ok() && std::chrono::steady_clock::now() < give_up) refused = client->Stats();
  { KillAndJoin stop(daemon, slow); }  // ends the slow call
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.status().code() == Code::kResourceExhausted);
  CHECK_THAT(refused.status().message(), Catch::Contains("--max-peer-requests"));
  CHECK_FALSE(slow_rpc.ok());
}

TEST_CASE("a miss parses its IR once: the digest's compile worker keeps the module for the compile",
          "[integration][workers]") {
  TempDir dir;
  DaemonProcess daemon(dir.path(), {"--workers", "1"});
  daemon.Start();
  auto client = daemon.Connect();
  auto reused = [&] { return StatsOf(daemon).compile_parses_reused(); };
  // (A CUDA miss begins its compile beside the digest instead: compile_ahead_test.cc.)
  std::vector<std::pair<std::string, std::string>> kernels = {{"cpu/saxpy.ll", "cpu:x86-64"}};
  std::uint64_t expected = 0;
  for (const auto& [path, target] : kernels) {
    INFO(path << " for " << target);
    v1::KernelDescriptor d = Descriptor(path, target);
    const v1::CompileResult first = CompileOne(*client, d);
    REQUIRE(first.status() == v1::CACHE_STATUS_COMPILED);
    CHECK(reused() == ++expected);
    // Compiled again from a parse of its own (the digest is remembered, so
    // nothing keeps one): the same artifact.
    d.set_recache(true);
    const v1::CompileResult again = CompileOne(*client, d);
    REQUIRE(again.status() == v1::CACHE_STATUS_COMPILED);
    CHECK(reused() == expected);
    CHECK(again.artifact().payload() == first.artifact().payload());
  }

  // Restarted, the daemon keys a stored kernel's IR again: its parse, kept
  // for a compile that does not come, neither serves nor harms the next one.
  REQUIRE(daemon.Stop() == 0);
  daemon.Start();
  client = daemon.Connect();
  CHECK(CompileOne(*client, Descriptor("cpu/saxpy.ll", "cpu:x86-64")).status() == v1::CACHE_STATUS_HIT);
  const v1::CompileResult other = CompileOne(*client, Descriptor("cpu/stencil2d.ll", "cpu:x86-64"));
  REQUIRE(other.status() == v1::CACHE_STATUS_COMPILED);
  CHECK(IsX86SharedObject(other.artifact().payload()));
  CHECK(reused() == 1);
}
