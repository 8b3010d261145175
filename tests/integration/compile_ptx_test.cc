// PTX as an input kind, through a real qdcached: compiles and hits, machine
// code equal to the toolkit's own ptxas -c + nvlink of the same PTX, keys
// that move with every input that can change the cubin and only those, the
// cubin stage shared with LLVM IR that made the same PTX, SMs past LLVM's
// reach, and bad PTX refused precisely with nothing stored.
#include <catch2/catch.hpp>
#include <regex>

#include "tests/support/cli_json.h"
#include "tests/support/daemon_process.h"
#include "tests/support/explain_key.h"
#include "tests/support/kernels.h"
#include "tests/support/restart_hits.h"
#include "tests/support/ptx_reference.h"
#include "tests/support/subprocess.h"

using namespace qdcache;
using namespace qdcache::testing;

namespace {

const char* const kHandWritten = "ptx/scale_shift.ptx";

v1::KernelDescriptor Ptx(const std::string& text, const std::string& sm) {
  v1::KernelDescriptor d;
  d.set_ir(text);
  d.set_kind(v1::SOURCE_KIND_PTX);
  d.mutable_target()->mutable_cuda()->set_sm(sm);
  return d;
}

// The PTX qdcached makes of one of the repository's LLVM IR kernels.
std::string PtxOfLlvmKernel(client::Client& client, const std::string& relative, const std::string& target) {
  v1::CompileRequest request;
  *request.add_kernels() = Descriptor(relative, target);
  request.set_include_ptx(true);
  auto response = client.Compile(request);
  REQUIRE(response.ok());
  REQUIRE(response->results(0).has_artifact());
  return response->results(0).artifact().ptx();
}

struct Variant {
  const char* name;
  std::function<void(v1::CompileOptions&)> set;
  std::vector<std::string> ptxas_flags;
};

std::vector<Variant> Variants() {
  return {
      {"defaults", [](v1::CompileOptions&) {}, {"-O3"}},
      {"max_registers 16", [](v1::CompileOptions& o) { o.set_max_registers(16); }, {"-O3", "--maxrregcount=16"}},
      {"no fmad", [](v1::CompileOptions& o) { o.set_fmad(false); }, {"-O3", "--fmad=false"}},
      {"opt_level 0", [](v1::CompileOptions& o) { o.set_opt_level(0); }, {"-O0"}},
      {"lineinfo", [](v1::CompileOptions& o) { o.set_lineinfo(true); }, {"-O3", "-lineinfo"}},
  };
}

}  // namespace

TEST_CASE("PTX compiles to a cubin for the exact SM, hits with identical bytes, also after a restart",
          "[integration][cuda][ptx]") {
  QDC_REQUIRE_CUDA_BUILT();
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  const std::string text = ReadFileOrDie(TestData(kHandWritten));
  std::vector<std::pair<v1::KernelDescriptor, std::string>> compiled;
  {
    auto client = daemon.Connect();
    for (const char* sm : {"sm_75", "sm_90", "sm_100", "sm_120"}) {
      INFO(sm);
      v1::CompileResult r = CompileOne(*client, Ptx(text, sm));
      INFO(r.error().message());
      REQUIRE(r.status() == v1::CACHE_STATUS_COMPILED);
      CHECK(r.artifact().kind() == v1::ARTIFACT_KIND_CUBIN);
      CHECK(CubinSm(r.artifact().payload()) == std::stoi(std::string(sm).substr(3)));
      REQUIRE(r.artifact().entries_size() == 2);
      CHECK(r.artifact().entries(0).name() == "scale_shift");
      CHECK(r.artifact().entries(0).max_threads_per_block() == 256);
      CHECK(r.artifact().entries(0).registers() > 0);
      CHECK(r.artifact().entries(1).name() == "block_sum");
      CHECK(r.artifact().entries(1).max_threads_per_block() == 128);
      CHECK(r.artifact().entries(1).shared_bytes() == 512);
      compiled.emplace_back(Ptx(text, sm), r.artifact().payload());
      v1::CompileResult hit = CompileOne(*client, Ptx(text, sm));
      REQUIRE(hit.status() == v1::CACHE_STATUS_HIT);
      CHECK(hit.artifact().payload() == r.artifact().payload());
    }
  }
  CheckHitsAfterRestart(daemon, compiled);
}

TEST_CASE("a PTX input's machine code is what ptxas -c and nvlink make of the same PTX",
          "[integration][cuda][ptx]") {
  QDC_REQUIRE_CUDA_BUILT();
  QDC_REQUIRE_TOOLKIT_TOOLS();
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  auto client = daemon.Connect();
  std::vector<std::pair<std::string, std::string>> inputs = {{kHandWritten, ReadFileOrDie(TestData(kHandWritten))}};
  for (const char* kernel : {"saxpy", "block_reduce", "stencil2d"}) {
    const std::string file = std::string("cuda/") + kernel + ".ll";
    inputs.emplace_back(file + " (its PTX)", PtxOfLlvmKernel(*client, file, "cuda:sm_80"));
  }
  for (const auto& [name, text] : inputs) {
    for (const char* sm : {"sm_80", "sm_90", "sm_100"}) {
      for (const Variant& v : Variants()) {
        INFO(name << " for " << sm << ", " << v.name);
        v1::KernelDescriptor d = Ptx(text, sm);
        v.set(*d.mutable_options());
        v1::CompileResult r = CompileOne(*client, d);
        INFO(r.error().message());
        REQUIRE(r.has_artifact());
        const std::string file = dir.path() + "/input.ptx";
        WriteFileOrDie(file, text);
        CheckSameMachineCode(r.artifact().payload(), ToolkitCubin(dir, file, sm, v.ptxas_flags));
      }
    }
  }
}

TEST_CASE("PTX keys move with each input that can change the cubin, and only with those",
          "[integration][cuda][ptx]") {
  QDC_REQUIRE_CUDA_BUILT();
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  auto client = daemon.Connect();
  const std::string text = ReadFileOrDie(TestData(kHandWritten));
  const v1::KernelDescriptor base = Ptx(text, "sm_90");
  const std::string key = ExplainKey(*client, base);
  const v1::Explanation explained = ExplainOne(*client, base);
  bool has_ptx_component = false, has_kind = false;
  for (const v1::KeyComponent& c : explained.components()) {
    has_ptx_component = has_ptx_component || c.name() == "ptx";
    has_kind = has_kind || (c.name() == "input_kind" && c.value() == "ptx");
  }
  CHECK(has_ptx_component);
  CHECK(has_kind);

  auto with = [&](const std::function<void(v1::KernelDescriptor&)>& change) {
    v1::KernelDescriptor d = base;
    change(d);
    return ExplainKey(*client, d);
  };
  auto replaced = [&](const std::string& pattern, const std::string& replacement) {
    return with([&](v1::KernelDescriptor& d) {
      const std::string changed = std::regex_replace(d.ir(), std::regex(pattern), replacement);
      REQUIRE(changed != d.ir());
      d.set_ir(changed);
    });
  };
  SECTION("perturbations: a new key each") {
    std::set<std::string> keys = {key};
    auto fresh = [&](const std::string& k) {
      CHECK(keys.insert(k).second);
    };
    fresh(replaced("add\\.f32 \t%r, %r, %b;", "sub.f32 \t%r, %r, %b;"));  // the source
    fresh(replaced("\\.maxntid 256, 1, 1", ".maxntid 128, 1, 1"));
    fresh(with([](v1::KernelDescriptor& d) { d.mutable_target()->mutable_cuda()->set_sm("sm_89"); }));
    fresh(with([](v1::KernelDescriptor& d) { d.mutable_target()->mutable_cuda()->set_sm("sm_90a"); }));
    fresh(with([](v1::KernelDescriptor& d) { d.mutable_target()->mutable_cuda()->set_sm("sm_100"); }));
    fresh(with([](v1::KernelDescriptor& d) { d.mutable_options()->set_opt_level(0); }));
    fresh(with([](v1::KernelDescriptor& d) { d.mutable_options()->set_max_registers(32); }));
    fresh(with([](v1::KernelDescriptor& d) { d.mutable_options()->set_fmad(false); }));
    fresh(with([](v1::KernelDescriptor& d) { d.mutable_options()->set_debug(true); }));
    fresh(with([](v1::KernelDescriptor& d) { d.mutable_options()->set_lineinfo(true); }));
    fresh(with([](v1::KernelDescriptor& d) { d.mutable_options()->set_fast_math(true); }));
    fresh(with([](v1::KernelDescriptor& d) { (*d.mutable_key_extras())["triton"] = "3.2"; }));
    // With line info the debug directives count.
    v1::KernelDescriptor lineinfo = base;
    lineinfo.mutable_options()->set_lineinfo(true);
    const std::string with_lines = ExplainKey(*client, lineinfo);
    lineinfo.set_ir(std::regex_replace(lineinfo.ir(), std::regex("\\.loc 1 9 0"), ".loc 1 19 0"));
    CHECK(ExplainKey(*client, lineinfo) != with_lines);
  }
  SECTION("equivalences: the same key") {
    CHECK(replaced("/\\* contracted[^*]*\\*/", "") == key);                       // a comment
    CHECK(replaced("// y = a \\* x \\+ b[^\\n]*", "// another comment") == key);  // a comment
    CHECK(replaced("\t", "    ") == key);                                         // blanks
    CHECK(replaced("\n", "\r\n") == key);                                          // line ends
    CHECK(replaced("\\.loc 1 9 0", ".loc 1 19 0") == key);  // debug directives without line info
    CHECK(replaced("\\.file 1 \"scale_shift.py\"", ".file 1 \"/elsewhere/x.py\"") == key);
    CHECK(with([](v1::KernelDescriptor& d) { d.mutable_options()->set_opt_level(2); }) == key);  // nvJitLink: -O3
    CHECK(with([](v1::KernelDescriptor& d) { d.mutable_options()->set_link_libdevice(true); }) == key);
  }
}

TEST_CASE("LLVM IR and the PTX it makes share the cubin stage", "[integration][cuda][ptx]") {
  QDC_REQUIRE_CUDA_BUILT();
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  auto client = daemon.Connect();
  const std::string ptx = PtxOfLlvmKernel(*client, "cuda/saxpy.ll", "cuda:sm_90");
  v1::CompileResult r = CompileOne(*client, Ptx("// sent as PTX by another front end\n" + ptx, "sm_90"));
  INFO(r.error().message());
  REQUIRE(r.status() == v1::CACHE_STATUS_STAGE_HIT);
  // A link option the LLVM IR compile did not use reuses nothing.
  v1::KernelDescriptor registers = Ptx(ptx, "sm_90");
  registers.mutable_options()->set_max_registers(24);
  CHECK(CompileOne(*client, registers).status() == v1::CACHE_STATUS_COMPILED);
}

TEST_CASE("SMs are reached per input kind: PTX past LLVM's NVPTX backend, refusals list what is reachable",
          "[integration][cuda][ptx]") {
  QDC_REQUIRE_CUDA_BUILT();
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  auto client = daemon.Connect();
  v1::CompileResult llvm = CompileOne(*client, Descriptor("cuda/saxpy.ll", "cuda:sm_100"));
  REQUIRE(llvm.has_error());
  CHECK(llvm.error().code() == static_cast<int>(Code::kInvalidArgument));
  CHECK_THAT(llvm.error().message(), Catch::Contains("for LLVM IR input") &&
                                         Catch::Contains("PTX input reaches sm_100"));
  v1::CompileResult old = CompileOne(*client, Ptx(ReadFileOrDie(TestData(kHandWritten)), "sm_60"));
  REQUIRE(old.has_error());
  CHECK(old.error().code() == static_cast<int>(Code::kInvalidArgument));
  CHECK_THAT(old.error().message(), Catch::Contains("unsupported CUDA SM 'sm_60' for ptx input") &&
                                        Catch::Contains("sm_75") && Catch::Contains("sm_100f"));
}

TEST_CASE("bad PTX is refused precisely, nothing is stored and the daemon carries on",
          "[integration][cuda][ptx]") {
  QDC_REQUIRE_CUDA_BUILT();
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  const pid_t pid = daemon.pid();
  auto client = daemon.Connect();
  const std::string good = ReadFileOrDie(TestData(kHandWritten));
  struct Bad {
    const char* name;
    v1::KernelDescriptor descriptor;
    Code code;
    const char* says;
  };
  v1::KernelDescriptor for_cpu = Ptx(good, "sm_90");
  for_cpu.mutable_target()->mutable_cpu()->set_cpu("x86-64");
  v1::KernelDescriptor unknown_kind = Ptx(good, "sm_90");
  unknown_kind.set_kind(static_cast<v1::SourceKind>(77));
  const std::vector<Bad> cases = {
      {"a syntax error", Ptx(std::regex_replace(good, std::regex("mul\\.f32"), "mul.f33"), "sm_90"),
       Code::kInvalidArgument, "line 18; error   : Unknown modifier '.f33'"},  // the client's line
      {"an undeclared register", Ptx(std::regex_replace(good, std::regex("%f3, \\[%rd5\\]"), "%f9, [%rd5]"), "sm_90"),
       Code::kInvalidArgument, "%f9"},
      {"PTX for a newer SM", Ptx(std::regex_replace(good, std::regex("\\.target sm_75"), ".target sm_90"), "sm_80"),
       Code::kInvalidArgument, "(the PTX's .target is sm_90; the target asked for is sm_80)"},
      {"no .version", Ptx(".target sm_75\n", "sm_90"), Code::kInvalidArgument, "does not begin with a .version"},
      {"LLVM IR sent as PTX", Ptx(ReadFileOrDie(TestData("cuda/saxpy.ll")), "sm_90"), Code::kInvalidArgument,
       "does not begin with a .version"},
      {"a NUL byte", Ptx(good + std::string(1, '\0'), "sm_90"), Code::kInvalidArgument, "NUL byte"},
      {"empty", Ptx("", "sm_90"), Code::kInvalidArgument, "the PTX is empty"},
      {"a CPU target", for_cpu, Code::kInvalidArgument, "ptx input cannot be compiled for cpu targets"},
      {"an unknown kind", unknown_kind, Code::kInvalidArgument, "source kind 77 is unknown"},
  };
  for (const Bad& bad : cases) {
    INFO(bad.name);
    v1::CompileResult r = CompileOne(*client, bad.descriptor);
    REQUIRE(r.has_error());
    CHECK(r.error().code() == static_cast<int>(bad.code));
    CHECK_THAT(r.error().message(), Catch::Contains(bad.says));
  }
  // A variable past the size bound is refused where the PTX is keyed, in the
  // daemon: Explain, which runs no compiler, refuses it as Compile does.
  const v1::KernelDescriptor huge =
      Ptx(std::regex_replace(good, std::regex("\\.visible \\.entry"),
                             ".visible .global .b8 huge[18446744073709551608];\n.visible .entry"),
          "sm_90");
  const v1::Explanation explained = ExplainOne(*client, huge);
  REQUIRE(explained.has_error());
  CHECK(explained.error().code() == static_cast<int>(Code::kInvalidArgument));
  CHECK_THAT(explained.error().message(), Catch::Contains("PTX variable huge (.global) is 18446744073709551608 bytes"));
  CHECK(CompileOne(*client, huge).error().message() == explained.error().message());
  auto listed = client->List(v1::ListRequest());
  REQUIRE(listed.ok());
  CHECK(listed->entries_size() == 0);
  CHECK(daemon.pid() == pid);
  CHECK(CompileOne(*client, Ptx(good, "sm_90")).status() == v1::CACHE_STATUS_COMPILED);
}

TEST_CASE("the CLI takes PTX by its extension or --kind", "[integration][cuda][ptx][cli]") {
  QDC_REQUIRE_CUDA_BUILT();
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  const std::string out = dir.path() + "/k.cubin";
  const nlohmann::json compiled =
      Json(Cli(daemon, {"compile", TestData(kHandWritten), "--target", "cuda:sm_90", "-o", out, "--json"}));
  CHECK(compiled["status"] == "compiled");
  CHECK(CubinSm(ReadFileOrDie(out)) == 90);
  const std::string renamed = dir.path() + "/kernel.txt";
  WriteFileOrDie(renamed, ReadFileOrDie(TestData(kHandWritten)));
  CHECK(Json(Cli(daemon, {"compile", renamed, "--kind", "ptx", "--target", "cuda:sm_90", "--json"}))["status"] ==
        "hit");
  // Without --kind, a file not named .ptx is LLVM IR, and the refusal says what it looks like.
  RunResult as_ir = Cli(daemon, {"compile", renamed, "--target", "cuda:sm_90"});
  CHECK(as_ir.exit_code != 0);
  CHECK_THAT(as_ir.err, Catch::Contains("PTX assembly") && Catch::Contains("--kind ptx"));
  RunResult unknown = Cli(daemon, {"compile", renamed, "--kind", "fortran", "--target", "cuda:sm_90"});
  CHECK(unknown.exit_code != 0);
  CHECK_THAT(unknown.err, Catch::Contains("unknown source kind \"fortran\" (known: llvm, ptx, nvvm, cuda)"));
}
