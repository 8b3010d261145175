// A full disk: writes fail cleanly, reads go on, and the store writes again
// once space is freed, without being reopened (write_recovery.h). The store
// runs in a child process on a small tmpfs of its own (PrivateTmpfs), this
// test binary re-executed on a hidden test case.
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "store/artifact_store.h"
#include "store/write_recovery.h"
#include "tests/support/private_tmpfs.h"
#include "tests/unit/store/store_test_util.h"

namespace qdcache::store {
namespace {

using testing::Bytes;
using testing::MakeRecord;
using testing::OpenOrFail;
using testing::TempDir;

constexpr std::uint64_t kDiskBytes = 4 << 20;

// Child side: already inside the private tmpfs mounted at $QDCACHE_DISK.
TEST_CASE("disk-full child (run by the disk-full test only)", "[.disk_full_child]") {
  const char* disk = std::getenv("QDCACHE_DISK");
  REQUIRE(disk != nullptr);
  const std::string ballast = std::string(disk) + "/ballast";
  StoreOptions options;
  options.path = std::string(disk) + "/store";
  options.access_flush_interval = std::chrono::milliseconds(0);  // no background writes
  const ArtifactRecord a = MakeRecord("a", 20000), b = MakeRecord("b", 20000);
  {
    auto store = OpenOrFail(options);
    REQUIRE(store->Put(a).ok());
    REQUIRE(::qdcache::testing::FillDisk(ballast) > 0);

    Status full = store->Put(b);
    CHECK(full.code() == Code::kUnavailable);
    CHECK_THAT(full.message(), Catch::Contains("No space left"));
    CHECK_FALSE(store->PutAlias(AliasKey{"uid:0", "ns", "t", "k"}, a.key).ok());
    auto read = store->Get(a.key);
    REQUIRE(read.ok());
    REQUIRE(read->has_value());
    CHECK((*read)->payload == a.payload);
    CHECK(store->Stats().artifacts == 1);

    REQUIRE(::unlink(ballast.c_str()) == 0);
    // The first write after space came back is stored.
    REQUIRE(store->Put(b).ok());
    REQUIRE(store->Get(b.key)->has_value());
    CHECK(store->Stats().artifacts == 2);
  }
  auto reopened = OpenOrFail(options);
  CHECK((*reopened->Get(a.key))->payload == a.payload);
  CHECK((*reopened->Get(b.key))->payload == b.payload);
  CHECK(reopened->Stats().artifacts == 2);
  CHECK(reopened->Stats().payload_bytes == Bytes(a) + Bytes(b));
}

TEST_CASE(
    "on a full disk writes fail, reads go on, and the first write after space is freed "
    "succeeds without reopening",
    "[store][disk_full]") {
  TempDir dir;
  const std::string disk = (dir.root() / "disk").string();
  std::filesystem::create_directory(disk);
  ::qdcache::testing::PrivateTmpfs tmpfs(disk, kDiskBytes);
  std::string why;
  if (!tmpfs.Available(&why)) {
    WARN("cannot mount a private tmpfs (" << why << "): skipping");
    return;
  }
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    if (!tmpfs.Enter()) ::_exit(126);
    ::setenv("QDCACHE_DISK", disk.c_str(), 1);
    ::execl("/proc/self/exe", "test_store", "[.disk_full_child]", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);  // the child's own report is above on failure
}

TEST_CASE("resume attempts are spaced by the interval unless space was freed",
          "[store][disk_full]") {
  using Clock = ResumeGate::Clock;
  ResumeGate gate(std::chrono::seconds(1));
  const Clock::time_point t0{};
  CHECK(gate.ShouldTry(t0, 0));  // nothing failed yet
  gate.Failed(t0, 1000);
  CHECK_FALSE(gate.ShouldTry(t0 + std::chrono::milliseconds(999), 1000));
  CHECK_FALSE(
      gate.ShouldTry(t0 + std::chrono::milliseconds(10), 1000 + ResumeGate::kMinFreedBytes - 1));
  CHECK(gate.ShouldTry(t0 + std::chrono::milliseconds(10), 1000 + ResumeGate::kMinFreedBytes));
  CHECK_FALSE(gate.ShouldTry(t0 + std::chrono::milliseconds(10), std::nullopt));
  CHECK(gate.ShouldTry(t0 + std::chrono::seconds(1), std::nullopt));
  gate.Succeeded();
  CHECK(gate.ShouldTry(t0 + std::chrono::milliseconds(1), 0));
}

TEST_CASE("only I/O errors and background errors are worth a resume", "[store][disk_full]") {
  CHECK(IsResumable(rocksdb::Status::NoSpace("full")));
  CHECK(IsResumable(rocksdb::Status::IOError("sync failed")));
  CHECK(IsResumable(
      rocksdb::Status(rocksdb::Status::NoSpace(), rocksdb::Status::Severity::kHardError)));
  CHECK_FALSE(IsResumable(rocksdb::Status::OK()));
  CHECK_FALSE(IsResumable(rocksdb::Status::InvalidArgument("bad")));
  CHECK_FALSE(IsResumable(rocksdb::Status::Corruption("bad block")));
}

}  // namespace
}  // namespace qdcache::store
