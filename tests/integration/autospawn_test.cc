// Per-user mode: the `qdcache` CLI starts a daemon when none serves its
// socket — exactly one, however many clients race to — and says clearly
// when it may not or cannot.
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <thread>
#include <vector>

#include "tests/support/daemon_process.h"
#include "tests/support/spawned_daemons.h"
#include "tests/support/subprocess.h"

using namespace qdcache;
using namespace qdcache::testing;

namespace {

// A zero-config user: private runtime and cache directories under a
// temporary directory, the built daemon, and nothing from the test's own
// environment that changes the spawn decision.
struct PerUserEnv {
  TempDir dir;
  std::string runtime = dir / "run";
  std::string socket = runtime + "/qdcached.sock";
  std::vector<std::string> env;

  PerUserEnv() {
    std::filesystem::create_directory(runtime);
    ::chmod(runtime.c_str(), 0700);
    env = {"XDG_RUNTIME_DIR=" + runtime, "XDG_CACHE_HOME=" + (dir / "cache"),
           "QDCACHED_BIN=" + DaemonBinary(),
           // A safety net only: the guard kills the daemon on every path.
           "QDCACHE_SPAWN_IDLE_EXIT=5m", "QDCACHE_AUTOSPAWN", "QDCACHE_SPAWN_TIMEOUT"};
  }
  RunResult Cli(std::vector<std::string> args, std::vector<std::string> more_env = {}) const {
    args.insert(args.begin(), CliBinary());
    std::vector<std::string> e = env;
    e.insert(e.end(), more_env.begin(), more_env.end());
    return Run(args, EnvChanges(e));
  }
};

// Binds a unix socket at `path` and closes it without listening: the file
// a daemon killed with SIGKILL leaves behind.
void MakeStaleSocket(const std::string& path) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  REQUIRE(fd >= 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  path.copy(addr.sun_path, sizeof addr.sun_path - 1);
  const bool bound = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  ::close(fd);
  REQUIRE(bound);
}

// Joins the threads on scope exit, also when a REQUIRE throws.
struct JoinAll {
  std::vector<std::thread>& threads;
  ~JoinAll() {
    for (std::thread& t : threads) {
      if (t.joinable()) t.join();
    }
  }
};

}  // namespace

TEST_CASE("16 racing CLI invocations with no daemon running start exactly one, and all succeed",
          "[integration][autospawn]") {
  PerUserEnv user;
  SpawnedDaemons daemons(user.socket);
  constexpr int kClients = 16;
  std::vector<RunResult> results(kClients);
  std::vector<std::thread> threads;
  {
    JoinAll join{threads};
    for (int i = 0; i < kClients; ++i) {
      threads.emplace_back([&, i] {
        try {
          results[i] =
              user.Cli({"compile", TestData("cpu/saxpy.ll"), "--target", "cpu:x86-64", "--json"});
        } catch (const std::exception& e) {
          results[i].err = e.what();  // exit_code stays -1
        }
      });
    }
  }
  std::set<std::string> keys;
  for (const RunResult& r : results) {
    INFO("stdout: " << r.out << "\nstderr: " << r.err);
    REQUIRE(r.exit_code == 0);
    keys.insert(nlohmann::json::parse(r.out)["artifact_key"].get<std::string>());
  }
  CHECK(keys.size() == 1);
  const std::vector<pid_t> running = daemons.Find();
  CHECK(running.size() == 1);
  RunResult stats = user.Cli({"stats", "--json"});
  INFO(stats.err);
  REQUIRE(stats.exit_code == 0);
  const nlohmann::json s = nlohmann::json::parse(stats.out);
  CHECK(s["compiles"] == 1);  // one daemon: the others were hits or coalesced
  CHECK(s["hits"].get<int>() + s["coalesced"].get<int>() == kClients - 1);
  CHECK(std::filesystem::exists(user.socket + ".lock"));
  CHECK_THAT(ReadFileOrDie(user.socket + ".log"), Catch::Contains("serving unix:" + user.socket));
  for (const std::optional<int>& status : daemons.Terminate(std::chrono::seconds(120))) {
    CHECK(status == 0);
  }
  CHECK(daemons.Find().empty());
  CHECK_FALSE(std::filesystem::exists(user.socket));
}

TEST_CASE("with spawning off and no daemon, the CLI names the socket and how to start one",
          "[integration][autospawn]") {
  PerUserEnv user;
  SpawnedDaemons daemons(user.socket);
  for (const RunResult& r : {user.Cli({"--no-spawn", "stats"}),
                             user.Cli({"stats"}, {"QDCACHE_AUTOSPAWN=0"}), user.Cli({"ping"})}) {
    INFO(r.err);
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.err, Catch::Contains("no qdcached is running at " + user.socket) &&
                          Catch::Contains("qdcached --socket " + user.socket) &&
                          Catch::Contains("--spawn"));
  }
  CHECK(daemons.Find().empty());
  CHECK_FALSE(std::filesystem::exists(user.socket));
}

TEST_CASE("an explicit --spawn wins over QDCACHE_AUTOSPAWN=0", "[integration][autospawn]") {
  PerUserEnv user;
  SpawnedDaemons daemons(user.socket);
  RunResult r = user.Cli({"--spawn", "ping"}, {"QDCACHE_AUTOSPAWN=0"});
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(daemons.Find().size() == 1);
}

TEST_CASE("a stale socket left by a dead daemon is replaced by a spawned one",
          "[integration][autospawn]") {
  PerUserEnv user;
  SpawnedDaemons daemons(user.socket);
  MakeStaleSocket(user.socket);
  // Without QDCACHED_BIN: the build tree's daemon, found from the CLI's own path.
  RunResult r = user.Cli({"stats", "--json"}, {"QDCACHED_BIN"});
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(daemons.Find().size() == 1);
}

TEST_CASE(
    "a daemon that fails to start is reported with its own message, without waiting for the "
    "deadline",
    "[integration][autospawn]") {
  PerUserEnv user;
  SpawnedDaemons daemons(user.socket);
  // The store cannot be created under a regular file: the real daemon
  // refuses to start and exits. A ten-minute ready timeout: had the client
  // waited for it instead of noticing the exit, CTest's timeout would fail
  // the test, and the message would be the deadline's.
  WriteFileOrDie(user.dir / "not-a-dir", "");
  RunResult r = user.Cli(
      {"stats"}, {"XDG_CACHE_HOME=" + (user.dir / "not-a-dir"), "QDCACHE_SPAWN_TIMEOUT=10m"});
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::Contains("failed to start") && Catch::Contains("cannot start") &&
                        Catch::Contains("opening store") && Catch::Contains(user.socket + ".log"));
  CHECK_THAT(r.err, !Catch::Contains("not ready within"));
  CHECK(daemons.Find().empty());
}

TEST_CASE("a daemon binary that is not there is named in the error", "[integration][autospawn]") {
  PerUserEnv user;
  SpawnedDaemons daemons(user.socket);
  RunResult r = user.Cli({"stats"}, {"QDCACHED_BIN=" + (user.dir / "no-such-qdcached")});
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::Contains("no-such-qdcached"));
  CHECK(daemons.Find().empty());
}

TEST_CASE("spawning never applies to a TCP address", "[integration][autospawn]") {
  PerUserEnv user;
  SpawnedDaemons daemons(user.socket);
  RunResult r = user.Cli({"--spawn", "--addr", "127.0.0.1:1", "--timeout", "5", "stats"});
  CHECK(r.exit_code == 1);
  CHECK(daemons.Find().empty());
  CHECK_FALSE(std::filesystem::exists(user.socket));
}
