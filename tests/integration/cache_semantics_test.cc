// Cache semantics through a real daemon: fast-key aliases across restarts,
// batched lookups, stage reuse, the byte cap, integrity and administration.
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "common/digest.h"
#include "tests/support/cli_json.h"
#include "tests/support/daemon_process.h"
#include "tests/support/kernels.h"
#include "tests/support/subprocess.h"
#include "tests/unit/store/store_test_util.h"

using namespace qdcache;
using namespace qdcache::testing;

namespace {

// A small, distinct CPU kernel per `n`.
v1::KernelDescriptor NumberedKernel(int n) {
  v1::KernelDescriptor d = Descriptor("cpu/saxpy.ll", "cpu:x86-64");
  d.set_ir("define i64 @value() {\n  ret i64 " + std::to_string(n) + "\n}\n");
  return d;
}

// Flips one byte in the middle of every stored artifact value (daemon stopped).
void CorruptArtifacts(const std::string& store_dir) {
  store::testing::RawDb db(store_dir);
  for (const std::string& key : db.Keys(db.artifacts())) {
    std::string value = *db.Get(db.artifacts(), key);
    value[value.size() / 2] ^= 0x5a;
    db.Put(db.artifacts(), key, value);
  }
}

}  // namespace

TEST_CASE("a fast key finds its artifact after a restart, without IR", "[integration][cache]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  v1::KernelDescriptor d = Descriptor("cpu/stencil2d.ll", "cpu:x86-64");
  d.set_fast_key("stencil-v1");
  d.set_namespace_("frontend");
  const std::string payload = CompileOne(*daemon.Connect(), d).artifact().payload();
  REQUIRE(daemon.Stop() == 0);
  daemon.Start();
  v1::LookupRequest request;
  v1::FastKeyQuery* q = request.add_queries();
  q->set_fast_key("stencil-v1");
  q->set_namespace_("frontend");
  *q->mutable_target() = d.target();
  auto response = daemon.Connect()->Lookup(request);
  REQUIRE(response.ok());
  REQUIRE(response->results(0).status() == v1::CACHE_STATUS_ALIAS_HIT);
  CHECK(response->results(0).artifact().payload() == payload);
  CHECK(StatsOf(daemon).compiles() == 0);
}

TEST_CASE("qdcache lookup --fast-keys FILE -o DIR fetches many artifacts in one call", "[integration][cache]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  std::string keys;
  std::map<std::string, std::string> payloads;
  auto client = daemon.Connect();
  for (int i = 0; i < 20; ++i) {
    v1::KernelDescriptor d = NumberedKernel(i);
    std::string hex = ToHex("key" + std::to_string(i));
    REQUIRE(FromHex(hex, d.mutable_fast_key()));
    d.set_namespace_("warm");
    payloads[hex] = CompileOne(*client, d).artifact().payload();
    keys += hex + "\n";
  }
  keys += "deadbeef\n";  // never compiled: a miss
  WriteFileOrDie(dir / "keys.txt", keys);
  RunResult r = Cli(daemon, {"lookup", "--fast-keys", dir / "keys.txt", "--namespace", "warm", "--target",
                             "cpu:x86-64", "-o", dir / "out"});
  CHECK(r.exit_code == 3);  // one miss
  for (const auto& [hex, payload] : payloads) {
    INFO(hex);
    CHECK(ReadFileOrDie(dir / ("out/" + hex + ".so")) == payload);
  }
  CHECK_FALSE(std::filesystem::exists(dir / "out/deadbeef.so"));
  CHECK(StatsOf(daemon).alias_hits() == 20);
}

TEST_CASE("changing only max registers reuses the cached PTX", "[integration][cache][cuda]") {
  QDC_REQUIRE_CUDA_BUILT();
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  auto client = daemon.Connect();
  v1::KernelDescriptor d = Descriptor("cuda/stencil2d.ll", "cuda:sm_90");
  REQUIRE(CompileOne(*client, d).status() == v1::CACHE_STATUS_COMPILED);
  d.mutable_options()->set_max_registers(32);
  v1::CompileResult reuse = CompileOne(*client, d);
  CHECK(reuse.status() == v1::CACHE_STATUS_STAGE_HIT);
  CHECK(CubinSm(reuse.artifact().payload()) == 90);
  d.mutable_options()->set_opt_level(0);  // read by both stages: a real compile
  CHECK(CompileOne(*client, d).status() == v1::CACHE_STATUS_COMPILED);
  CHECK(StatsOf(daemon).stage_hits() == 1);
}

TEST_CASE("a kernel using libdevice math compiles to a cubin without unresolved calls", "[integration][cache][cuda]") {
  QDC_REQUIRE_CUDA_BUILT();
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  v1::CompileRequest request;
  v1::KernelDescriptor* d = request.add_kernels();
  *d = Descriptor("cuda/saxpy.ll", "cuda:sm_90");
  d->set_ir(
      "target triple = \"nvptx64-nvidia-cuda\"\n"
      "declare float @__nv_expf(float)\n"
      "declare float @__nv_sinf(float)\n"
      "define ptx_kernel void @math(ptr %p) {\n"
      "  %x = load float, ptr %p\n  %e = call float @__nv_expf(float %x)\n"
      "  %s = call float @__nv_sinf(float %e)\n  store float %s, ptr %p\n  ret void\n}\n");
  d->mutable_options()->set_link_libdevice(true);
  request.set_include_ptx(true);
  auto response = daemon.Connect()->Compile(request);
  REQUIRE(response.ok());
  const v1::CompileResult& r = response->results(0);
  INFO(r.error().message());
  REQUIRE(r.status() == v1::CACHE_STATUS_COMPILED);
  CHECK(CubinSm(r.artifact().payload()) == 90);
  CHECK(r.artifact().ptx().find(".extern .func") == std::string::npos);
}

TEST_CASE("under a small byte cap the store stays within cap + one entry and counts evictions",
          "[integration][cache]") {
  TempDir dir;
  DaemonProcess daemon(dir.path(), {"--max-size", "64K"});
  daemon.Start();
  auto client = daemon.Connect();
  for (int i = 0; i < 60; ++i) {
    v1::CompileResult r = CompileOne(*client, NumberedKernel(i));
    REQUIRE(r.has_artifact());
    v1::Stats s = StatsOf(daemon);
    INFO("kernel " << i << " total " << s.total_bytes());
    REQUIRE(s.total_bytes() <= s.max_bytes() + r.artifact().payload().size());
  }
  v1::Stats s = StatsOf(daemon);
  CHECK(s.max_bytes() == 64 * 1024);
  CHECK(s.evictions() > 0);
  CHECK(s.store_artifacts() < 60);
  // The most recent kernel is still there.
  CHECK(CompileOne(*client, NumberedKernel(59)).status() == v1::CACHE_STATUS_HIT);
}

TEST_CASE("corrupted stored bytes are never served: the entry is dropped and recompiled",
          "[integration][cache]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  v1::KernelDescriptor d = Descriptor("cpu/saxpy.ll", "cpu:x86-64");
  d.set_fast_key("k");
  const std::string good = CompileOne(*daemon.Connect(), d).artifact().payload();
  REQUIRE(daemon.Stop() == 0);
  CorruptArtifacts(daemon.store_dir());
  daemon.Start();
  v1::CompileResult again = CompileOne(*daemon.Connect(), d);
  CHECK(again.status() == v1::CACHE_STATUS_COMPILED);
  CHECK(again.artifact().payload() == good);
  v1::Stats s = StatsOf(daemon);
  CHECK(s.corrupt_dropped() == 1);
  CHECK(s.compiles() == 1);
}

TEST_CASE("a fast key whose artifact is corrupt is a miss", "[integration][cache]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  v1::KernelDescriptor d = Descriptor("cpu/saxpy.ll", "cpu:x86-64");
  d.set_fast_key("k");
  REQUIRE(CompileOne(*daemon.Connect(), d).has_artifact());
  REQUIRE(daemon.Stop() == 0);
  CorruptArtifacts(daemon.store_dir());
  daemon.Start();
  RunResult r = Cli(daemon, {"lookup", "--fast-key", ToHex("k"), "--target", "cpu:x86-64", "--json"});
  CHECK(r.exit_code == 3);
  CHECK(StatsOf(daemon).corrupt_dropped() == 1);
}

TEST_CASE("qdcache verify finds and drops corrupt entries", "[integration][cache]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  auto client = daemon.Connect();
  for (int i = 0; i < 3; ++i) REQUIRE(CompileOne(*client, NumberedKernel(i)).has_artifact());
  client.reset();
  REQUIRE(daemon.Stop() == 0);
  CorruptArtifacts(daemon.store_dir());
  daemon.Start();
  nlohmann::json v = Json(Cli(daemon, {"verify", "--json"}));
  CHECK(v["dropped"] == 3);
  CHECK(v["checked"].get<int>() >= 3);
  CHECK(StatsOf(daemon).store_artifacts() == 0);
}

TEST_CASE("qdcache ls, inspect, evict and trim administer the store", "[integration][cache]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  auto client = daemon.Connect();
  std::vector<std::string> keys;
  for (int i = 0; i < 4; ++i) keys.push_back(ToHex(CompileOne(*client, NumberedKernel(i)).artifact().artifact_key()));

  nlohmann::json ls = Json(Cli(daemon, {"ls", "--json"}));
  REQUIRE(ls["entries"].size() == 4);
  CHECK(ls["entries"][0]["artifact_key"] == keys[3]);  // most recently used first

  nlohmann::json one = Json(Cli(daemon, {"inspect", keys[1], "--json", "-o", dir / "one.so"}));
  CHECK(one["artifact_key"] == keys[1]);
  CHECK(one["entries"][0]["name"] == "value");
  CHECK(IsX86SharedObject(ReadFileOrDie(dir / "one.so")));
  RunResult missing = Cli(daemon, {"inspect", std::string(64, '0')});
  CHECK(missing.exit_code == 1);
  CHECK_THAT(missing.err, Catch::Contains("NOT_FOUND"));

  const std::uint64_t one_entry = ReadFileOrDie(dir / "one.so").size();
  nlohmann::json trimmed = Json(Cli(daemon, {"trim", "--max-size", std::to_string(2 * one_entry + one_entry / 2) + "B", "--json"}));
  CHECK(trimmed["evicted_entries"] == 2);
  CHECK(StatsOf(daemon).store_artifacts() == 2);

  nlohmann::json evicted = Json(Cli(daemon, {"evict", "--older-than", "0s", "--json"}));
  CHECK(evicted["evicted_entries"] == 2);
  CHECK(StatsOf(daemon).store_artifacts() == 0);
  CHECK(Cli(daemon, {"evict", "--older-than", "soon"}).exit_code == 2);
}

TEST_CASE("an alias made under another toolchain is a miss, not a stale hit", "[integration][cache]") {
  QDC_REQUIRE_CUDA_BUILT();  // the libdevice digest is the toolchain part a test can change
  TempDir dir;
  DaemonProcess first(dir.path());
  first.Start();
  v1::KernelDescriptor d = Descriptor("cpu/saxpy.ll", "cpu:x86-64");
  d.set_fast_key("k");
  REQUIRE(CompileOne(*first.Connect(), d).has_artifact());
  REQUIRE(first.Stop() == 0);
  WriteFileOrDie(dir / "other-libdevice.bc", "not the libdevice the artifact was built with");
  DaemonProcess upgraded(dir.path(), {"--libdevice", dir / "other-libdevice.bc"});
  upgraded.Start();
  RunResult r = Cli(upgraded, {"lookup", "--fast-key", ToHex("k"), "--target", "cpu:x86-64", "--json"});
  CHECK(r.exit_code == 3);
  CHECK(CompileOne(*upgraded.Connect(), d).status() == v1::CACHE_STATUS_COMPILED);
  CHECK(Cli(upgraded, {"lookup", "--fast-key", ToHex("k"), "--target", "cpu:x86-64"}).exit_code == 0);
}

TEST_CASE("an eviction age beyond a century is refused and evicts nothing", "[integration][cache]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  REQUIRE(CompileOne(*daemon.Connect(), NumberedKernel(1)).has_artifact());
  // The CLI refuses it before asking (a usage error)...
  RunResult r = Cli(daemon, {"evict", "--older-than", "1000000000w"});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("100 years"));
  // ...and so does the daemon, for any other client.
  v1::EvictRequest request;
  request.set_older_than_seconds(604800000000000ull);
  Expected<v1::EvictResponse> evicted = daemon.Connect()->Evict(request);
  REQUIRE_FALSE(evicted.ok());
  CHECK(evicted.status().code() == Code::kInvalidArgument);
  CHECK_THAT(evicted.status().message(), Catch::Contains("century"));
  CHECK(StatsOf(daemon).store_artifacts() == 1);
}
