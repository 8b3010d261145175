// A real qdcached compiles AMDGPU kernels (LLVM IR, and IR clang-19 makes of
// HIP sources) to HSA code objects, caches them across restarts, and reports
// their kernels' resources. No GPU is needed: the code objects are checked as
// ELF files (fidelity with llc + ld.lld is tests/unit/compiler's).
#include <elf.h>

#include <catch2/catch.hpp>
#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/cli_json.h"
#include "tests/support/daemon_process.h"
#include "tests/support/kernels.h"
#include "tests/support/subprocess.h"

using namespace qdcache;
using namespace qdcache::testing;

namespace {

constexpr std::uint32_t kMachGfx90a = 0x3f;
constexpr std::uint32_t kMachGfx942 = 0x4c;
constexpr std::uint32_t kMachGfx1100 = 0x41;

// The defined symbols whose names end in ".kd" (kernel descriptors), sorted.
std::vector<std::string> Descriptors(const std::string& path) {
  std::vector<std::string> out;
  for (const ElfSymbolInfo& s : ElfSymbols(ReadFileOrDie(path))) {
    if (s.name.size() > 3 && s.name.ends_with(".kd") && !s.undefined) out.push_back(s.name);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());  // .symtab and .dynsym
  return out;
}

}  // namespace

TEST_CASE("qdcache compile --target amdgpu:gfxN: compiled, then hit with identical bytes, also after a restart",
          "[integration][amdgpu]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  const std::string ll = TestData("amdgpu/saxpy.ll");
  for (const auto& [processor, mach] : {std::pair{"gfx90a", kMachGfx90a}, std::pair{"gfx942", kMachGfx942},
                                        std::pair{"gfx1100", kMachGfx1100}}) {
    INFO(processor);
    const std::string target = std::string("amdgpu:") + processor;
    const std::string first_path = dir / (std::string(processor) + "-1.hsaco");
    nlohmann::json first = Json(Cli(daemon, {"compile", ll, "--target", target, "-o", first_path, "--json"}));
    CHECK(first["status"] == "compiled");
    CHECK(first["kind"] == "hsa_code_object");
    CHECK(first["target"] == target);
    const std::string bytes = ReadFileOrDie(first_path);
    const std::optional<std::uint32_t> flags = AmdgpuCodeObjectFlags(bytes);
    REQUIRE(flags.has_value());
    CHECK((*flags & 0xff) == mach);
    CHECK(Descriptors(first_path) == std::vector<std::string>{"saxpy.kd"});
    const nlohmann::json& entry = first["entries"].at(0);
    CHECK(entry["name"] == "saxpy");
    CHECK(entry["sgprs"].get<int>() > 0);
    CHECK(entry["vgprs"].get<int>() > 0);
    CHECK(entry["wavefront_size"] == (std::string(processor) == "gfx1100" ? 32 : 64));
    CHECK(entry["shared_bytes"] == 0);

    nlohmann::json second = Json(Cli(daemon, {"compile", ll, "--target", target, "-o", dir / "again.hsaco", "--json"}));
    CHECK(second["status"] == "hit");
    CHECK(second["artifact_key"] == first["artifact_key"]);
    CHECK(ReadFileOrDie(dir / "again.hsaco") == bytes);
  }
  REQUIRE(daemon.Stop() == 0);
  daemon.Start();
  nlohmann::json after = Json(Cli(daemon, {"compile", ll, "--target", "amdgpu:gfx942", "-o", dir / "after.hsaco",
                                           "--json"}));
  CHECK(after["status"] == "hit");
  CHECK(ReadFileOrDie(dir / "after.hsaco") == ReadFileOrDie(dir / "gfx942-1.hsaco"));

  // inspect shows the kernel's resources.
  const RunResult inspect = Cli(daemon, {"inspect", after["artifact_key"].get<std::string>().substr(0, 12)});
  INFO(inspect.err);
  REQUIRE(inspect.exit_code == 0);
  CHECK_THAT(inspect.out, Catch::Contains("hsa_code_object") && Catch::Contains("sgprs=") &&
                              Catch::Contains("vgprs=") && Catch::Contains("wavefront_size=64"));
}

TEST_CASE("AMDGPU targets are normalized, keyed by their features, and refused with the processors",
          "[integration][amdgpu]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  const std::string ll = TestData("amdgpu/saxpy.ll");
  nlohmann::json a = Json(Cli(daemon, {"compile", ll, "--target", "amdgpu:GFX90A:xnack+:sramecc-:xnack+", "-o",
                                       dir / "a.hsaco", "--json"}));
  CHECK(a["target"] == "amdgpu:gfx90a:sramecc-:xnack+");
  nlohmann::json b = Json(Cli(daemon, {"compile", ll, "--target", "amdgpu:gfx90a:sramecc-:xnack+", "-o",
                                       dir / "b.hsaco", "--json"}));
  CHECK(b["status"] == "hit");
  nlohmann::json any = Json(Cli(daemon, {"compile", ll, "--target", "amdgpu:gfx90a", "-o", dir / "c.hsaco", "--json"}));
  CHECK(any["status"] == "compiled");
  CHECK(any["artifact_key"] != a["artifact_key"]);

  const RunResult unknown = Cli(daemon, {"compile", ll, "--target", "amdgpu:gfx9999", "-o", dir / "x.hsaco"});
  CHECK(unknown.exit_code != 0);
  CHECK_THAT(unknown.err, Catch::Contains("unknown AMDGPU processor 'gfx9999'") && Catch::Contains("gfx942"));
  const RunResult both = Cli(daemon, {"compile", ll, "--target", "amdgpu:gfx90a:xnack+:xnack-", "-o", dir / "x.hsaco"});
  CHECK(both.exit_code != 0);
  CHECK_THAT(both.err, Catch::Contains("both on (+) and off (-)"));
  const RunResult native = Cli(daemon, {"compile", ll, "--target", "amdgpu:native", "-o", dir / "x.hsaco"});
  CHECK(native.exit_code != 0);
  CHECK_THAT(native.err, Catch::Contains("'native' is not allowed"));
  const RunResult cuda_ir = Cli(daemon, {"compile", TestData("cpu/saxpy.ll"), "--target", "amdgpu:gfx90a", "-o",
                                         dir / "x.hsaco"});
  CHECK(cuda_ir.exit_code != 0);
  CHECK_THAT(cuda_ir.err, Catch::Contains("contradicts target amdgpu:gfx90a"));

  nlohmann::json targets = Json(Cli(daemon, {"targets", "--json"}));
  bool listed = false;
  for (const nlohmann::json& family : targets["families"]) {
    if (family["family"] != "amdgpu") continue;
    listed = true;
    const auto processors = family["processors"].get<std::vector<std::string>>();
    for (const char* p : {"gfx90a", "gfx942", "gfx1100", "gfx1201"}) {
      CHECK(std::find(processors.begin(), processors.end(), p) != processors.end());
    }
    CHECK(family["features"] == nlohmann::json{"sramecc", "xnack"});
  }
  CHECK(listed);
}

TEST_CASE("HIP kernels clang-19 compiles to IR build for three processors", "[integration][amdgpu]") {
  const std::string clang = FindOnPath("clang-19");
  if (clang.empty()) {
    WARN("clang-19 is not installed (Debian: clang-19): skipping");
    return;
  }
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  for (const char* processor : {"gfx90a", "gfx942", "gfx1100"}) {
    INFO(processor);
    const std::string ll = dir / (std::string(processor) + ".ll");
    const RunResult ir = Run({clang, "-x", "hip", "--cuda-device-only", std::string("--offload-arch=") + processor,
                              "-nogpulib", "-nogpuinc", "-O2", "-emit-llvm", "-S", TestData("amdgpu/softclip.hip"),
                              "-o", ll});
    INFO(ir.err);
    REQUIRE(ir.exit_code == 0);
    const std::string out = dir / (std::string(processor) + ".hsaco");
    nlohmann::json j =
        Json(Cli(daemon, {"compile", ll, "--target", std::string("amdgpu:") + processor, "-o", out, "--json"}));
    CHECK(j["status"] == "compiled");
    std::vector<std::string> names;
    for (const nlohmann::json& e : j["entries"]) names.push_back(e["name"]);
    std::sort(names.begin(), names.end());
    CHECK(names == std::vector<std::string>{"_Z4fillILi7EEvPi", "softclip"});
    CHECK(Descriptors(out) == std::vector<std::string>{"_Z4fillILi7EEvPi.kd", "softclip.kd"});
  }
}
