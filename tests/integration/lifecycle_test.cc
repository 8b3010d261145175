// The daemon's process lifecycle: socket ownership, permissions, SIGTERM.
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>

#include "tests/support/daemon_process.h"
#include "tests/support/kernels.h"
#include "tests/support/subprocess.h"

using namespace qdcache;
using namespace qdcache::testing;

TEST_CASE("SIGTERM stops the daemon with exit status 0 and removes its socket", "[integration][lifecycle]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  REQUIRE(std::filesystem::exists(daemon.socket_path()));
  CHECK(daemon.Stop() == 0);
  CHECK_FALSE(std::filesystem::exists(daemon.socket_path()));
}

TEST_CASE("the unix socket is created with mode 0660", "[integration][lifecycle]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  struct stat st {};
  REQUIRE(::stat(daemon.socket_path().c_str(), &st) == 0);
  CHECK(S_ISSOCK(st.st_mode));
  CHECK((st.st_mode & 0777) == 0660);
}

TEST_CASE("a second daemon refuses a socket that a live daemon serves", "[integration][lifecycle]") {
  TempDir dir;
  DaemonProcess first(dir.path());
  first.Start();
  RunResult second = Run({DaemonBinary(), "--socket", first.socket_path(), "--store", dir / "other-store"});
  CHECK(second.exit_code == 1);
  CHECK_THAT(second.err, Catch::Contains("already serving"));
  CHECK(first.Connect()->Ping().ok());
  // It failed before creating anything: no store, no worker was started.
  CHECK_FALSE(std::filesystem::exists(dir / "other-store"));
  CHECK_THAT(second.err, !Catch::Contains("compile workers:"));
}

TEST_CASE("a second daemon on a store in use fails at once, naming the process, and creates nothing",
          "[integration][lifecycle]") {
  TempDir dir;
  DaemonProcess first(dir.path());
  first.Start();
  RunResult second = Run({DaemonBinary(), "--socket", dir / "second.sock", "--store", first.store_dir()});
  CHECK(second.exit_code == 1);
  CHECK_THAT(second.err, Catch::Contains("is in use by another process (pid " + std::to_string(first.pid())));
  CHECK_THAT(second.err, !Catch::Contains("While lock file"));
  CHECK_THAT(second.err, !Catch::Contains("compile workers:"));
  CHECK_FALSE(std::filesystem::exists(dir / "second.sock"));
  CHECK(first.Connect()->Ping().ok());
}

TEST_CASE("worker scratch left by a daemon killed with SIGKILL is reaped by the next start, and only that",
          "[integration][lifecycle]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  CHECK(CompileOne(*daemon.Connect(), Descriptor("cpu/saxpy.ll", "cpu:x86-64")).has_artifact());
  const std::filesystem::path scratch = std::filesystem::path(daemon.store_dir()) / "worker-scratch";
  auto owned_by = [&](pid_t pid) {
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(scratch)) {
      const std::string name = e.path().filename().string();
      if (name.rfind("w-" + std::to_string(pid) + "-", 0) == 0) names.push_back(name);
    }
    return names;
  };
  const pid_t killed = daemon.pid();
  REQUIRE(owned_by(killed).size() >= 2);  // the key and compile workers' directories
  daemon.Kill();
  REQUIRE(owned_by(killed).size() >= 2);  // SIGKILL leaves them behind
  // A directory of a process that is alive (this one) and one not named
  // like scratch: neither is the new daemon's to remove.
  std::filesystem::create_directory(scratch / ("w-" + std::to_string(::getpid()) + "-Live01"));
  std::filesystem::create_directory(scratch / "not-scratch");

  daemon.Start();
  CHECK(owned_by(killed).empty());
  CHECK(owned_by(daemon.pid()).size() >= 2);
  CHECK(std::filesystem::exists(scratch / ("w-" + std::to_string(::getpid()) + "-Live01")));
  CHECK(std::filesystem::exists(scratch / "not-scratch"));
  CHECK_THAT(daemon.log(), Catch::Contains("compile worker scratch director"));
}

TEST_CASE("a stale socket left by a killed daemon is replaced", "[integration][lifecycle]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  daemon.Kill();
  REQUIRE(std::filesystem::exists(daemon.socket_path()));  // SIGKILL leaves it behind
  daemon.Start();
  CHECK(daemon.Connect()->Ping().ok());
}

TEST_CASE("a path that is not a socket is never replaced", "[integration][lifecycle]") {
  TempDir dir;
  WriteFileOrDie(dir / "precious", "data");
  RunResult r = Run({DaemonBinary(), "--socket", dir / "precious", "--store", dir / "store"});
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::Contains("not a socket"));
  CHECK(ReadFileOrDie(dir / "precious") == "data");
}

TEST_CASE("bad flags are a usage error", "[integration][lifecycle]") {
  TempDir dir;
  for (std::vector<std::string> args : {std::vector<std::string>{"--no-such-flag"},
                                        {"--workers", "99999"},
                                        {"--max-message-bytes", "0"},
                                        {"--max-size", "12Q"}}) {
    // A temporary socket and store: should a flag stop being refused, the
    // daemon serves there (until CTest's timeout fails the test), never on
    // the user's real socket and store.
    args.insert(args.begin(), {DaemonBinary(), "--socket", dir / "s", "--store", dir / "store"});
    RunResult r = Run(args);
    INFO(args[5]);
    CHECK(r.exit_code == 2);
    CHECK_FALSE(r.err.empty());
  }
}

TEST_CASE("idle exit: a daemon with no requests exits by itself with status 0 and removes its socket",
          "[integration][lifecycle][idle]") {
  TempDir dir;
  DaemonProcess daemon(dir.path(), {"--idle-exit", "1s"});
  daemon.Start();
  CHECK(daemon.WaitForExit(std::chrono::seconds(120)) == 0);
  CHECK_FALSE(std::filesystem::exists(daemon.socket_path()));
  CHECK_THAT(daemon.log(), Catch::Contains("idle for 1s, exiting") && Catch::Contains("stopped"));
}

TEST_CASE("idle exit: a compile in flight keeps the daemon up until it is answered",
          "[integration][lifecycle][idle]") {
  TempDir dir;
  // The compile must arrive within the idle time of the start; it then
  // lasts several times as long (about 7 s on a 2-core machine).
  DaemonProcess daemon(dir.path(), {"--idle-exit", "3s", "--workers", "1"});
  daemon.Start();
  v1::CompileResult r = CompileOne(*daemon.Connect(), SlowCpuKernel(20000));
  INFO(r.DebugString());
  REQUIRE(r.has_artifact());
  // What makes this test able to fail: the compile outlasted the idle time,
  // so a daemon that counted only RPC arrivals would have exited under it.
  REQUIRE(r.artifact().timings().total_seconds() > 3.0);
  CHECK(daemon.WaitForExit(std::chrono::seconds(120)) == 0);
  // The idle timer fired only after the compile had finished: in the log,
  // the compile's line comes first.
  const std::string log = daemon.log();
  const std::size_t compiled = log.find("compiled ");
  const std::size_t idle = log.find("idle for 3s, exiting");
  INFO(log);
  REQUIRE(compiled != std::string::npos);
  REQUIRE(idle != std::string::npos);
  CHECK(compiled < idle);
}

TEST_CASE("the idle exit (--idle-exit) takes a duration", "[integration][lifecycle][idle]") {
  TempDir dir;
  RunResult r = Run({DaemonBinary(), "--socket", dir / "s", "--store", dir / "store", "--idle-exit", "soon"});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("--idle-exit"));
}
