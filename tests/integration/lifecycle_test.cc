// The daemon's process lifecycle: socket ownership, permissions, SIGTERM.
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>

#include "tests/support/daemon_process.h"
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
