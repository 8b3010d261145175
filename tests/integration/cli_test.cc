// The `qdcache` command line against a real daemon.
#include <dlfcn.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "tests/support/cli_json.h"
#include "tests/support/daemon_process.h"
#include "tests/support/kernels.h"
#include "tests/support/subprocess.h"

using namespace qdcache;
using namespace qdcache::testing;

TEST_CASE("qdcache compile --json reports compiled, then hit, with identical output files", "[integration][cli]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  const std::string target = CudaBuilt() ? "cuda:sm_90" : "cpu:x86-64";
  const std::string ll = TestData(CudaBuilt() ? "cuda/saxpy.ll" : "cpu/saxpy.ll");
  nlohmann::json first = Json(Cli(daemon, {"compile", ll, "--target", target, "-o", dir / "a.bin", "--json"}));
  CHECK(first["status"] == "compiled");
  CHECK(first["artifact_key"].get<std::string>().size() == 64);
  CHECK(first["size"].get<std::size_t>() == ReadFileOrDie(dir / "a.bin").size());
  nlohmann::json second = Json(Cli(daemon, {"compile", ll, "--target", target, "-o", dir / "b.bin", "--json"}));
  CHECK(second["status"] == "hit");
  CHECK(second["artifact_key"] == first["artifact_key"]);
  CHECK(ReadFileOrDie(dir / "a.bin") == ReadFileOrDie(dir / "b.bin"));
  if (CudaBuilt()) {
    CHECK(first["kind"] == "cubin");
    CHECK(CubinSm(ReadFileOrDie(dir / "a.bin")) == 90);
  }
}

TEST_CASE("the .so written by qdcache compile loads with dlopen and computes", "[integration][cli]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  RunResult r = Cli(daemon, {"compile", TestData("cpu/saxpy.ll"), "--target", "cpu:x86-64", "-o", dir / "saxpy.so"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  void* handle = dlopen((dir / "saxpy.so").c_str(), RTLD_NOW | RTLD_LOCAL);
  INFO((handle ? "" : dlerror()));
  REQUIRE(handle != nullptr);
  auto* saxpy = reinterpret_cast<void (*)(std::int64_t, float, const float*, float*)>(dlsym(handle, "saxpy"));
  REQUIRE(saxpy != nullptr);
  float x[3] = {1, 2, 3}, y[3] = {10, 20, 30};
  saxpy(3, 2.0f, x, y);
  CHECK(y[0] == 12);
  CHECK(y[1] == 24);
  CHECK(y[2] == 36);
  dlclose(handle);
}

TEST_CASE("qdcache compile of a malformed file exits non-zero with the daemon's message", "[integration][cli]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  WriteFileOrDie(dir / "bad.ll", "define void @f() {\n  ret i32x\n}\n");
  RunResult r = Cli(daemon, {"compile", dir / "bad.ll", "--target", "cpu:x86-64", "-o", dir / "out.so"});
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::Contains("INVALID_ARGUMENT"));
  CHECK_THAT(r.err, Catch::Contains("2:"));
  CHECK_FALSE(std::filesystem::exists(dir / "out.so"));
}

TEST_CASE("qdcache lookup finds an artifact by fast key without sending IR", "[integration][cli]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  nlohmann::json compiled = Json(Cli(daemon, {"compile", TestData("cpu/saxpy.ll"), "--target", "cpu:x86-64",
                                              "--fast-key", "c0ffee", "--namespace", "tests", "--json"}));
  nlohmann::json found = Json(Cli(daemon, {"lookup", "--fast-key", "c0ffee", "--namespace", "tests", "--target",
                                           "cpu:x86-64", "-o", dir / "found.so", "--json"}));
  CHECK(found["status"] == "alias_hit");
  CHECK(found["artifact_key"] == compiled["artifact_key"]);
  CHECK(IsX86SharedObject(ReadFileOrDie(dir / "found.so")));

  RunResult other_ns = Cli(daemon, {"lookup", "--fast-key", "c0ffee", "--namespace", "elsewhere", "--target",
                                    "cpu:x86-64", "--json"});
  CHECK(other_ns.exit_code == 3);
  CHECK(nlohmann::json::parse(other_ns.out)["status"] == "miss");
  RunResult other_target = Cli(daemon, {"lookup", "--fast-key", "c0ffee", "--namespace", "tests", "--target",
                                        "cpu:x86-64+avx2", "--json"});
  CHECK(other_target.exit_code == 3);
}

TEST_CASE("qdcache stats --json counts compiles, hits, coalesced and errors", "[integration][cli]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  std::string ll = TestData("cpu/saxpy.ll");
  REQUIRE(Cli(daemon, {"compile", ll, "--target", "cpu:x86-64"}).exit_code == 0);
  REQUIRE(Cli(daemon, {"compile", ll, "--target", "cpu:x86-64"}).exit_code == 0);
  WriteFileOrDie(dir / "empty.ll", "");
  REQUIRE(Cli(daemon, {"compile", dir / "empty.ll", "--target", "cpu:x86-64"}).exit_code == 1);
  nlohmann::json s = Json(Cli(daemon, {"stats", "--json"}));
  CHECK(s["compiles"] == 1);
  CHECK(s["hits"] == 1);
  CHECK(s["coalesced"] == 0);
  CHECK(s["errors"] == 1);
  CHECK(s["store_artifacts"] == 1);
  for (const char* field : {"alias_hits", "stage_hits", "misses", "evictions", "evicted_bytes", "total_bytes",
                            "max_bytes", "stage_entries", "corrupt_dropped", "toolchain"}) {
    INFO(field);
    CHECK(s.contains(field));
  }
}

TEST_CASE("qdcache ping fails clearly when no daemon is running", "[integration][cli]") {
  TempDir dir;
  // --no-spawn: ping does not start a daemon anyway; the other commands would.
  for (const char* command : {"ping", "stats"}) {
    RunResult r = Run({CliBinary(), "--no-spawn", "--socket", dir / "nobody.sock", "--timeout", "2", command});
    INFO(command);
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.err, Catch::Contains("no qdcached is running at " + (dir / "nobody.sock")));
  }
}
