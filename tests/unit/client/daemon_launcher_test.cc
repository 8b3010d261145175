// The per-user daemon's log: the previous one is kept as "<log>.1", and a
// path the user keeps there that is not a regular file (a link, a FIFO) is
// neither moved nor replaced.
#include "client/daemon_launcher.h"

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/support/temp_dir.h"

using namespace qdcache;
using namespace qdcache::client;
using qdcache::testing::TempDir;

namespace {

// A plan whose daemon exits at once without the handshake: enough to see
// what happened to the log path before it was started.
LaunchPlan ExitingDaemon(const std::string& log) {
  LaunchPlan plan;
  plan.binary = "/bin/sh";
  plan.args = {"-c", "exit 3"};
  plan.log_path = log;
  return plan;
}

std::string Contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

bool IsKind(const std::string& path, mode_t kind) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && (st.st_mode & S_IFMT) == kind;
}

}  // namespace

TEST_CASE("the previous daemon's log is kept as <log>.1 and a new one is started",
          "[client][autospawn][log]") {
  TempDir dir;
  const std::string log = dir.File("qdcached.log", "the last daemon's words\n");
  const Status started = LaunchDaemon(ExitingDaemon(log));
  CHECK(started.code() == Code::kUnavailable);  // it exited before the handshake
  CHECK(Contents(log + ".1") == "the last daemon's words\n");
  CHECK(IsKind(log, S_IFREG));
  CHECK(Contents(log).find("the last daemon's words") == std::string::npos);
}

TEST_CASE("a symbolic link at the log path is refused and neither it nor its target is touched",
          "[client][autospawn][log]") {
  TempDir dir;
  const std::string target = dir.File("users-file", "keep me\n");
  const std::string log = dir / "qdcached.log";
  REQUIRE(::symlink(target.c_str(), log.c_str()) == 0);
  const Status started = LaunchDaemon(ExitingDaemon(log));
  CHECK(started.code() == Code::kFailedPrecondition);
  CHECK_THAT(started.message(), Catch::Contains("not a regular file"));
  CHECK(IsKind(log, S_IFLNK));
  CHECK(std::filesystem::read_symlink(log).string() == target);
  CHECK(Contents(target) == "keep me\n");
  CHECK_FALSE(std::filesystem::exists(log + ".1"));
}

TEST_CASE("a FIFO at the log path is refused and stays a FIFO", "[client][autospawn][log]") {
  TempDir dir;
  const std::string log = dir / "qdcached.log";
  REQUIRE(::mkfifo(log.c_str(), 0600) == 0);
  const Status started = LaunchDaemon(ExitingDaemon(log));
  CHECK(started.code() == Code::kFailedPrecondition);
  CHECK(IsKind(log, S_IFIFO));
  CHECK_FALSE(std::filesystem::exists(log + ".1"));
}

TEST_CASE("a log is not rotated onto a <log>.1 that is not a regular file", "[client][autospawn][log]") {
  TempDir dir;
  const std::string log = dir.File("qdcached.log", "the last daemon's words\n");
  const std::string target = dir.File("users-file", "keep me\n");
  REQUIRE(::symlink(target.c_str(), (log + ".1").c_str()) == 0);
  const Status started = LaunchDaemon(ExitingDaemon(log));
  CHECK(started.code() == Code::kFailedPrecondition);
  CHECK(IsKind(log + ".1", S_IFLNK));
  CHECK(Contents(target) == "keep me\n");
  CHECK(Contents(log) == "the last daemon's words\n");
}
