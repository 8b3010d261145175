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
  CHECK(r.has_artifact());
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
