// Damaged bytes at rest are never served, whatever they hold: artifacts
// (cache_semantics_test.cc), fast-key aliases and stage outputs (here) are
// each verified on read, dropped, counted and rebuilt.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "common/digest.h"
#include "tests/support/cli_json.h"
#include "tests/support/daemon_process.h"
#include "tests/support/kernels.h"
#include "tests/support/subprocess.h"
#include "tests/unit/store/store_test_util.h"

using namespace qdcache;
using namespace qdcache::testing;
using RawDb = qdcache::store::testing::RawDb;

namespace {

// Flips one byte in the middle of every value of one column family of a
// stopped daemon's store; returns how many values it damaged.
template <typename Family>
std::size_t CorruptAll(const std::string& store_dir, Family family) {
  RawDb db(store_dir);
  rocksdb::ColumnFamilyHandle* cf = family(db);
  std::size_t damaged = 0;
  for (const std::string& key : db.Keys(cf)) {
    std::string value = *db.Get(cf, key);
    value[value.size() / 2] ^= 0x5a;
    db.Put(cf, key, value);
    ++damaged;
  }
  return damaged;
}

auto Artifacts = [](RawDb& db) { return db.artifacts(); };
auto Aliases = [](RawDb& db) { return db.aliases(); };
auto Stages = [](RawDb& db) { return db.stages(); };

}  // namespace

TEST_CASE(
    "a corrupt fast-key alias is dropped, not followed: the lookup misses and the next "
    "compile restores it",
    "[integration][corruption]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  v1::KernelDescriptor d = Descriptor("cpu/saxpy.ll", "cpu:x86-64");
  d.set_fast_key("aliased");
  d.set_namespace_("corruption");
  const std::string payload = CompileOne(*daemon.Connect(), d).artifact().payload();
  REQUIRE(daemon.Stop() == 0);
  REQUIRE(CorruptAll(daemon.store_dir(), Aliases) == 1);
  daemon.Start();

  CHECK(LookupOne(daemon, d).status() == v1::CACHE_STATUS_MISS);
  v1::Stats s = StatsOf(daemon);
  CHECK(s.corrupt_dropped() == 1);
  CHECK(s.store_aliases() == 0);
  // The artifact itself was sound: a hit, which writes the alias again.
  const v1::CompileResult again = CompileOne(*daemon.Connect(), d);
  CHECK(again.status() == v1::CACHE_STATUS_HIT);
  const v1::CompileResult found = LookupOne(daemon, d);
  CHECK(found.status() == v1::CACHE_STATUS_ALIAS_HIT);
  CHECK(found.artifact().payload() == payload);
  CHECK(StatsOf(daemon).store_aliases() == 1);
}

TEST_CASE("a corrupt PTX stage output is dropped and compiled again, never linked",
          "[integration][corruption][cuda]") {
  QDC_REQUIRE_CUDA_BUILT();
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  v1::KernelDescriptor d = Descriptor("cuda/stencil2d.ll", "cuda:sm_90");
  REQUIRE(CompileOne(*daemon.Connect(), d).status() == v1::CACHE_STATUS_COMPILED);
  REQUIRE(daemon.Stop() == 0);
  REQUIRE(CorruptAll(daemon.store_dir(), Stages) == 2);  // the PTX and the cubin
  daemon.Start();

  // Only the linker options change: this would reuse the PTX stage.
  d.mutable_options()->set_max_registers(32);
  const v1::CompileResult r = CompileOne(*daemon.Connect(), d);
  CHECK(r.status() == v1::CACHE_STATUS_COMPILED);
  CHECK(CubinSm(r.artifact().payload()) == 90);
  v1::Stats s = StatsOf(daemon);
  CHECK(s.corrupt_dropped() == 1);
  CHECK(s.stage_hits() == 0);
  // The PTX stage was written again, and is reused now.
  d.mutable_options()->set_max_registers(64);
  CHECK(CompileOne(*daemon.Connect(), d).status() == v1::CACHE_STATUS_STAGE_HIT);
}

TEST_CASE("qdcache verify drops corrupt artifacts, aliases and stage outputs alike",
          "[integration][corruption]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  v1::KernelDescriptor cpu = Descriptor("cpu/saxpy.ll", "cpu:x86-64");
  cpu.set_fast_key("cpu");
  REQUIRE(CompileOne(*daemon.Connect(), cpu).has_artifact());
  if (CudaBuilt()) {
    v1::KernelDescriptor cuda = Descriptor("cuda/saxpy.ll", "cuda:sm_90");
    cuda.set_fast_key("cuda");
    REQUIRE(CompileOne(*daemon.Connect(), cuda).has_artifact());
  }
  REQUIRE(daemon.Stop() == 0);
  const std::size_t artifacts = CorruptAll(daemon.store_dir(), Artifacts);
  const std::size_t aliases = CorruptAll(daemon.store_dir(), Aliases);
  const std::size_t stages = CorruptAll(daemon.store_dir(), Stages);
  CHECK(artifacts == (CudaBuilt() ? 2 : 1));
  CHECK(aliases == artifacts);
  CHECK(stages == (CudaBuilt() ? 2 : 0));
  daemon.Start();

  nlohmann::json v = Json(Cli(daemon, {"verify", "--json"}));
  CHECK(v["dropped"] == artifacts + aliases + stages);
  CHECK(v["checked"] == artifacts + aliases + stages);
  v1::Stats s = StatsOf(daemon);
  CHECK(s.store_artifacts() == 0);
  CHECK(s.store_aliases() == 0);
  CHECK(s.stage_entries() == 0);
  CHECK(s.corrupt_dropped() == artifacts + aliases + stages);
  // Nothing left to serve: the next request compiles.
  CHECK(CompileOne(*daemon.Connect(), cpu).status() == v1::CACHE_STATUS_COMPILED);
}
