// `qdcache ptxas`, the drop-in for CUDA's ptxas, against a real daemon: each
// of Triton's command-line shapes writes a cubin whose machine code is what
// the toolkit's ptxas -c + nvlink make of the same PTX with the same flags;
// --version parses as Triton parses it; errors exit as ptxas's do.
#include <catch2/catch.hpp>
#include <regex>
#include <unistd.h>

#include "tests/support/cli_json.h"
#include "tests/support/daemon_process.h"
#include "tests/support/kernels.h"
#include "tests/support/ptx_reference.h"
#include "tests/support/subprocess.h"

using namespace qdcache;
using namespace qdcache::testing;

namespace {

EnvChanges To(const DaemonProcess& daemon) {
  return {"QDCACHE_SOCKET=" + daemon.socket_path(), "QDCACHE_AUTOSPAWN=0", "QDCACHE_ADDR"};
}

RunResult Ptxas(const DaemonProcess& daemon, std::vector<std::string> args, const std::string& program = "") {
  args.insert(args.begin(), program.empty() ? CliBinary() : program);
  if (program.empty()) args.insert(args.begin() + 1, "ptxas");
  return Run(args, To(daemon));
}

}  // namespace

TEST_CASE("qdcache ptxas given Triton's command lines writes ptxas's machine code", "[integration][cuda][ptxas]") {
  QDC_REQUIRE_CUDA_BUILT();
  QDC_REQUIRE_TOOLKIT_TOOLS();
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  const std::string ptx = TestData("ptx/scale_shift.ptx");
  struct Shape {
    std::vector<std::string> flags;  // besides -v, --gpu-name, the input and -o
    std::string sm;
  };
  const std::vector<Shape> shapes = {
      {{"-lineinfo"}, "sm_90"},                              // Triton's default
      {{"-lineinfo", "-suppress-debug-info"}, "sm_90a"},     // TRITON_DISABLE_LINE_INFO
      {{"-lineinfo", "--fmad=false"}, "sm_80"},              // enable_fp_fusion=False
      {{"-lineinfo", "--opt-level", "0"}, "sm_75"},          // DISABLE_PTXAS_OPT
      {{"-g"}, "sm_90"},                                     // TRITON_KERNEL_DUMP debug
      {{"--maxrregcount", "32"}, "sm_100"},
      {{"-O3"}, "sm_120"},
  };
  for (const Shape& shape : shapes) {
    std::string described;
    for (const std::string& f : shape.flags) described += f + " ";
    INFO(described << shape.sm);
    const std::string out = dir.path() + "/out.cubin";
    std::vector<std::string> args = shape.flags;
    args.insert(args.end(), {"-v", "--gpu-name=" + shape.sm, ptx, "-o", out});
    RunResult r = Ptxas(daemon, args);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const std::string cubin = ReadFileOrDie(out);
    CHECK(CubinSm(cubin) == std::stoi(shape.sm.substr(3)));
    CHECK_THAT(r.err, Catch::Contains("ptxas info    : Compiling entry function 'scale_shift' for '" + shape.sm + "'") &&
                          Catch::Contains("Compiling entry function 'block_sum'") && Catch::Contains("registers"));
    CheckSameMachineCode(cubin, ToolkitCubin(dir, ptx, shape.sm, shape.flags));
  }
}

TEST_CASE("qdcache ptxas works through a link named ptxas, and its --version parses as Triton's",
          "[integration][cuda][ptxas]") {
  QDC_REQUIRE_CUDA_BUILT();
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  const std::string link = dir.path() + "/ptxas";
  REQUIRE(::symlink(CliBinary().c_str(), link.c_str()) == 0);
  RunResult version = Ptxas(daemon, {"--version"}, link);
  INFO(version.err);
  REQUIRE(version.exit_code == 0);
  std::smatch release;
  const std::string text = version.out;
  // triton/backends/nvidia/compiler.py: re.search(r".*release (\d+\.\d+).*", version)
  REQUIRE(std::regex_search(text, release, std::regex("release (\\d+\\.\\d+)")));
  if (!std::string(QDCACHE_PTXAS).empty()) {
    std::smatch toolkit;
    const std::string theirs = Run({QDCACHE_PTXAS, "--version"}).out;
    REQUIRE(std::regex_search(theirs, toolkit, std::regex("release (\\d+\\.\\d+)")));
    CHECK(release[1] == toolkit[1]);  // the toolkit's ptxas is the one nvJitLink carries
  }
  const std::string out = dir.path() + "/k.cubin";
  RunResult compiled = Ptxas(daemon, {"--gpu-name=sm_90", TestData("ptx/scale_shift.ptx"), "-o", out}, link);
  INFO(compiled.err);
  REQUIRE(compiled.exit_code == 0);
  CHECK(CubinSm(ReadFileOrDie(out)) == 90);
  CHECK(compiled.err.empty());  // without -v, nothing
}

TEST_CASE("qdcache ptxas fails as ptxas does, leaving no output", "[integration][cuda][ptxas]") {
  QDC_REQUIRE_CUDA_BUILT();
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  const std::string bad = dir.path() + "/bad.ptx", out = dir.path() + "/bad.cubin";
  WriteFileOrDie(bad, std::regex_replace(ReadFileOrDie(TestData("ptx/scale_shift.ptx")), std::regex("mul\\.f32"),
                                         "mul.f33"));
  RunResult r = Ptxas(daemon, {"-v", "--gpu-name=sm_90", bad, "-o", out});
  CHECK(r.exit_code == 255);
  CHECK_THAT(r.err, Catch::Contains("line 18; error   : Unknown modifier '.f33'"));
  CHECK(::access(out.c_str(), F_OK) != 0);
  RunResult unsupported = Ptxas(daemon, {"--warn-on-spills", "--gpu-name=sm_90", bad, "-o", out});
  CHECK(unsupported.exit_code == 255);
  CHECK_THAT(unsupported.err, Catch::Contains("unsupported ptxas option '--warn-on-spills'"));
  RunResult missing = Ptxas(daemon, {"--gpu-name=sm_90", dir.path() + "/none.ptx", "-o", out});
  CHECK(missing.exit_code == 255);
  CHECK_THAT(missing.err, Catch::Contains("none.ptx"));
  CHECK(::access(out.c_str(), F_OK) != 0);
}
