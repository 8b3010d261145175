// kill -9 loses no acknowledged write (sync_writes = false: the WAL reaches
// the OS page cache before Put returns). The writer runs in a fresh process
// (this test binary re-executed on a hidden test case) so it owns no RocksDB
// threads inherited through fork.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "store/artifact_store.h"
#include "tests/unit/store/store_test_util.h"

namespace qdcache::store {
namespace {

using testing::KeyFor;
using testing::MakeRecord;
using testing::OpenOrFail;
using testing::TempDir;

constexpr int kCrashRecords = 200;

// Child side: writes records, acknowledging each one on the ack fd only after
// Put returned, then dies by SIGKILL without closing anything.
TEST_CASE("crash child (run by the crash test only)", "[.crash_child]") {
  const char* path = std::getenv("QDCACHE_CRASH_STORE");
  const char* ack = std::getenv("QDCACHE_CRASH_ACK_FD");
  REQUIRE(path != nullptr);
  REQUIRE(ack != nullptr);
  const int ack_fd = std::atoi(ack);
  StoreOptions options;
  options.path = path;
  auto store = OpenOrFail(options);
  for (int i = 0; i < kCrashRecords; ++i) {
    const std::string seed = "crash-" + std::to_string(i);
    AliasKey alias;
    alias.fast_key = seed;
    REQUIRE(store->Put(MakeRecord(seed, 100 + 50 * i), alias).ok());
    const std::string line = std::to_string(i) + "\n";
    REQUIRE(::write(ack_fd, line.data(), line.size()) == static_cast<ssize_t>(line.size()));
  }
  ::raise(SIGKILL);
}

TEST_CASE("kill -9 after Put returns loses no acknowledged record", "[store][crash]") {
  TempDir dir;
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::close(fds[0]);
    ::setenv("QDCACHE_CRASH_STORE", dir.store_path().c_str(), 1);
    ::setenv("QDCACHE_CRASH_ACK_FD", std::to_string(fds[1]).c_str(), 1);
    // The child's test report goes to a scratch file in the test's directory.
    const std::string report = (dir.root() / "child-report.txt").string();
    ::execl("/proc/self/exe", "test_store", "[.crash_child]", "--out", report.c_str(),
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(fds[1]);
  std::string acks;
  char buffer[4096];
  for (ssize_t n; (n = ::read(fds[0], buffer, sizeof buffer)) != 0;) {
    if (n < 0) {
      REQUIRE(errno == EINTR);
      continue;
    }
    acks.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGKILL);

  int acknowledged = 0;
  for (char c : acks) acknowledged += c == '\n';
  REQUIRE(acknowledged == kCrashRecords);

  StoreOptions options;
  options.path = dir.store_path();
  auto store = OpenOrFail(options);
  std::uint64_t bytes = 0;
  for (int i = 0; i < acknowledged; ++i) {
    const ArtifactRecord expected = MakeRecord("crash-" + std::to_string(i), 100 + 50 * i);
    auto got = store->Get(expected.key);
    REQUIRE(got.ok());
    REQUIRE(got->has_value());
    CHECK((*got)->payload == expected.payload);
    AliasKey alias;
    alias.fast_key = "crash-" + std::to_string(i);
    CHECK(*store->GetAlias(alias) == expected.key);
    bytes += expected.payload.size() + expected.ptx.size();
  }
  const StoreStats stats = store->Stats();
  CHECK(stats.artifacts == static_cast<std::uint64_t>(acknowledged));
  CHECK(stats.aliases == static_cast<std::uint64_t>(acknowledged));
  CHECK(stats.payload_bytes == bytes);
  CHECK(stats.corrupt_dropped == 0);
}

}  // namespace
}  // namespace qdcache::store
