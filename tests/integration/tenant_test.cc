// Fast-key aliases belong to the uid that made them (SO_PEERCRED): another
// user never sees them.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/support/daemon_process.h"
#include "tests/support/kernels.h"
#include "tests/support/subprocess.h"

using namespace qdcache;
using namespace qdcache::testing;

namespace {

constexpr uid_t kOtherUid = 65534;  // "nobody"

}  // namespace

TEST_CASE("another uid does not see a fast-key alias, and gets its own", "[integration][tenant]") {
  if (::geteuid() != 0) {
    WARN("not root: cannot act as a second uid; skipping");
    return;
  }
  TempDir dir;
  ::chmod(dir.path().c_str(), 0755);
  DaemonProcess daemon(dir.path());
  daemon.Start();
  // Let the second uid reach the socket; the daemon made it 0660 root:root.
  REQUIRE(::chmod(daemon.socket_path().c_str(), 0666) == 0);
  const std::string ll = TestData("cpu/saxpy.ll");
  const std::vector<std::string> lookup = {CliBinary(), "--socket", daemon.socket_path(), "lookup",
                                           "--fast-key", "abcd", "--namespace", "ns",
                                           "--target", "cpu:x86-64", "--json"};

  RunResult mine = Run({CliBinary(), "--socket", daemon.socket_path(), "compile", ll, "--target",
                        "cpu:x86-64", "--fast-key", "abcd", "--namespace", "ns"});
  REQUIRE(mine.exit_code == 0);
  CHECK(Run(lookup).exit_code == 0);

  RunResult theirs = Run(lookup, kOtherUid);
  INFO(theirs.err);
  CHECK(theirs.exit_code == 3);
  CHECK(nlohmann::json::parse(theirs.out)["status"] == "miss");

  // The other uid's compile hits the shared artifact but records its own alias.
  RunResult their_compile = Run({CliBinary(), "--socket", daemon.socket_path(), "compile", ll,
                                 "--target", "cpu:x86-64", "--fast-key", "abcd", "--namespace", "ns",
                                 "--json"},
                                kOtherUid);
  INFO(their_compile.err);
  REQUIRE(their_compile.exit_code == 0);
  CHECK(nlohmann::json::parse(their_compile.out)["status"] == "hit");
  CHECK(Run(lookup, kOtherUid).exit_code == 0);
  CHECK_THAT(daemon.log(), Catch::Contains("uid 65534"));
}
