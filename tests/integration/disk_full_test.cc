// A full disk under the store: compiles still answer, stored artifacts are
// still served, and storing resumes by itself once space is back. The store
// lives on a small tmpfs that only the daemon sees (PrivateTmpfs); the test
// fills and frees it through /proc/<daemon pid>/root.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>

#include "tests/support/daemon_process.h"
#include "tests/support/kernels.h"
#include "tests/support/private_tmpfs.h"
#include "tests/support/subprocess.h"

using namespace qdcache;
using namespace qdcache::testing;

namespace {

constexpr std::uint64_t kDiskBytes = 8 << 20;

v1::KernelDescriptor NumberedKernel(int n) {
  v1::KernelDescriptor d = Descriptor("cpu/saxpy.ll", "cpu:x86-64");
  d.set_ir("define i64 @value() {\n  ret i64 " + std::to_string(n) + "\n}\n");
  d.clear_entry_points();
  return d;
}

}  // namespace

TEST_CASE(
    "with the store's disk full, compiles are served uncached and stored artifacts stay "
    "readable, and once space is back, storing resumes without a restart",
    "[integration][diskfull]") {
  TempDir dir;
  std::filesystem::create_directory(dir / "store");
  PrivateTmpfs disk(dir / "store", kDiskBytes);
  std::string why;
  if (!disk.Available(&why)) {
    WARN("cannot give the daemon a private tmpfs (" << why << "): skipping");
    return;
  }
  DaemonProcess daemon(dir.path());
  daemon.set_child_setup([&disk] { return disk.Enter(); });
  daemon.Start();
  auto client = daemon.Connect();

  v1::KernelDescriptor before = NumberedKernel(1);
  before.set_fast_key("before");
  before.set_namespace_("disk");
  const v1::CompileResult stored = CompileOne(*client, before);
  REQUIRE(stored.status() == v1::CACHE_STATUS_COMPILED);

  const std::string ballast = disk.PathFromOutside(daemon.pid(), "ballast");
  REQUIRE(FillDisk(ballast) > 0);

  // A new kernel is compiled and served; storing it fails and is counted.
  const v1::CompileResult full = CompileOne(*client, NumberedKernel(2));
  CHECK(full.status() == v1::CACHE_STATUS_COMPILED);
  CHECK(IsX86SharedObject(full.artifact().payload()));
  const v1::Stats while_full = StatsOf(daemon);
  CHECK(while_full.store_errors() > 0);
  CHECK_THAT(daemon.log(), Catch::Contains("store write failed"));

  // What was stored before is still served, by key and by fast key.
  const v1::CompileResult hit = CompileOne(*client, before);
  CHECK(hit.status() == v1::CACHE_STATUS_HIT);
  CHECK(hit.artifact().payload() == stored.artifact().payload());
  v1::LookupRequest lookup;
  v1::FastKeyQuery* q = lookup.add_queries();
  q->set_fast_key("before");
  q->set_namespace_("disk");
  *q->mutable_target() = before.target();
  auto found = client->Lookup(lookup);
  REQUIRE(found.ok());
  CHECK(found->results(0).status() == v1::CACHE_STATUS_ALIAS_HIT);
  CHECK(found->results(0).artifact().payload() == stored.artifact().payload());

  // Space comes back: the next write resumes the store and is kept.
  REQUIRE(::unlink(ballast.c_str()) == 0);
  CHECK(CompileOne(*client, NumberedKernel(2)).status() == v1::CACHE_STATUS_COMPILED);
  const v1::CompileResult after = CompileOne(*client, NumberedKernel(2));
  CHECK(after.status() == v1::CACHE_STATUS_HIT);
  CHECK(after.artifact().payload() == full.artifact().payload());
  const v1::Stats recovered = StatsOf(daemon);
  CHECK(recovered.store_errors() == while_full.store_errors());
  CHECK(recovered.compiles() == 3);
  CHECK_THAT(daemon.log(), Catch::Contains("writing again"));
  CHECK(daemon.Stop() == 0);
}
