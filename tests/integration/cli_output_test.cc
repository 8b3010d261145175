// Every file `qdcache` writes (-o, --ptx-out, lookup -o DIR, inspect -o,
// export --out) goes through common/output_file.h: devices, FIFOs and
// symbolic links the user names are written through, never replaced.
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "tests/support/cli_json.h"
#include "tests/support/daemon_process.h"
#include "tests/support/kernels.h"
#include "tests/support/subprocess.h"

using namespace qdcache;
using namespace qdcache::testing;

namespace {

struct stat Lstat(const std::string& path) {
  struct stat st {};
  REQUIRE(::lstat(path.c_str(), &st) == 0);
  return st;
}

}  // namespace

TEST_CASE("as root, qdcache -o onto a null device node leaves it a character device",
          "[integration][cli][output]") {
  if (::geteuid() != 0) {
    WARN("skipped: needs root to make a device node (mknod), as a CI container runs");
    return;
  }
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  const std::string node = dir / "null";  // what /dev/null is: c 1 3
  REQUIRE(::mknod(node.c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0);
  const std::string target = CudaBuilt() ? "cuda:sm_90" : "cpu:x86-64";
  const std::string ll = TestData(CudaBuilt() ? "cuda/saxpy.ll" : "cpu/saxpy.ll");
  std::vector<std::string> args = {"compile", ll, "--target", target, "-o", node, "--json"};
  if (CudaBuilt()) args.insert(args.end(), {"--ptx-out", node});
  nlohmann::json r = Json(Cli(daemon, args));
  CHECK(r["status"] == "compiled");
  CHECK(Cli(daemon, {"inspect", r["artifact_key"].get<std::string>(), "-o", node}).exit_code == 0);
  RunResult exported = Cli(daemon, {"export", "--out", node});
  INFO(exported.err);
  CHECK(exported.exit_code == 0);
  const struct stat st = Lstat(node);
  CHECK(S_ISCHR(st.st_mode));
  CHECK(st.st_rdev == makedev(1, 3));
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    CHECK(entry.path().filename().string().rfind(".null", 0) != 0);  // no temporary file left
  }
}

TEST_CASE("qdcache -o through a symbolic link writes its target, and a FIFO gets the bytes in place",
          "[integration][cli][output]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  std::filesystem::create_directory(dir / "out");
  WriteFileOrDie(dir / "out/saxpy.so", "stale");
  ::chmod((dir / "out/saxpy.so").c_str(), 0750);
  REQUIRE(::symlink("out/saxpy.so", (dir / "link.so").c_str()) == 0);
  nlohmann::json r = Json(Cli(daemon, {"compile", TestData("cpu/saxpy.ll"), "--target", "cpu:x86-64",
                                       "-o", dir / "link.so", "--json"}));
  REQUIRE(r["status"] == "compiled");
  CHECK(S_ISLNK(Lstat(dir / "link.so").st_mode));
  CHECK(IsX86SharedObject(ReadFileOrDie(dir / "out/saxpy.so")));
  CHECK((Lstat(dir / "out/saxpy.so").st_mode & 07777) == 0750);

  const std::string fifo = dir / "fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  std::string received;
  std::thread reader([&] { received = ReadFileOrDie(fifo); });
  RunResult exported = Cli(daemon, {"export", "--out", fifo});
  reader.join();
  INFO(exported.err);
  CHECK(exported.exit_code == 0);
  CHECK(S_ISFIFO(Lstat(fifo).st_mode));
  CHECK(received.size() > 100);  // the bundle, streamed

  RunResult into_dir = Cli(daemon, {"compile", TestData("cpu/saxpy.ll"), "--target", "cpu:x86-64",
                                    "-o", dir / "out"});
  CHECK(into_dir.exit_code == 1);
  CHECK_THAT(into_dir.err, Catch::Contains("is a directory"));
  CHECK(std::filesystem::is_directory(dir / "out"));
}
