// CUDA C++ as an input kind, through a real qdcached: NVRTC makes the PTX
// (in a compile worker), nvJitLink the cubin, whose machine code is ptxas -c
// + nvlink's of that PTX; headers sent by name, name expressions, the
// toolkit's own headers, the device runtime, keys, closed-world refusals.
#include <catch2/catch.hpp>
#include <functional>
#include <regex>
#include <set>
#include <thread>

#include "tests/support/cli_json.h"
#include "tests/support/daemon_process.h"
#include "tests/support/explain_key.h"
#include "tests/support/kernels.h"
#include "tests/support/ptx_reference.h"
#include "tests/support/restart_hits.h"
#include "tests/support/subprocess.h"

using namespace qdcache;
using namespace qdcache::testing;

namespace {

v1::KernelDescriptor Cuda(const std::string& file, const std::string& sm) {
  v1::KernelDescriptor d;
  d.set_ir(ReadFileOrDie(TestData("cuda_cpp/" + file)));
  d.set_kind(v1::SOURCE_KIND_CUDA);
  d.mutable_target()->mutable_cuda()->set_sm(sm);
  return d;
}

void AddHeader(v1::KernelDescriptor& d, const std::string& name) {
  v1::SourceFile* h = d.add_headers();
  h->set_name(name);
  h->set_content(ReadFileOrDie(TestData("cuda_cpp/include/" + name)));
}

// scale.cu with its two headers and both instantiations named.
v1::KernelDescriptor Scale(const std::string& sm) {
  v1::KernelDescriptor d = Cuda("scale.cu", sm);
  AddHeader(d, "scale_ops.cuh");
  AddHeader(d, "detail/bias.cuh");
  d.add_name_expressions("scale<float>");
  d.add_name_expressions("scale<double>");
  return d;
}

using Change = std::function<void(v1::KernelDescriptor&)>;

v1::KernelDescriptor Changed(v1::KernelDescriptor d, const Change& change) {
  change(d);
  return d;
}

std::map<std::string, std::string> LoweredNames(const v1::Artifact& a) {
  std::map<std::string, std::string> names;
  for (const v1::LoweredName& n : a.lowered_names()) names[n.expression()] = n.name();
  return names;
}

}  // namespace

TEST_CASE("a templated CUDA C++ kernel with local headers compiles, names its instantiations, and hits",
          "[integration][cuda][cuda-cpp]") {
  QDC_REQUIRE_CUDA_BUILT();
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  std::vector<std::pair<v1::KernelDescriptor, std::string>> compiled;
  {
    auto client = daemon.Connect();
    for (const char* sm : {"sm_80", "sm_90a", "sm_100", "sm_120"}) {
      INFO(sm);
      v1::CompileResult r = CompileOne(*client, Scale(sm));
      INFO(r.error().message());
      REQUIRE(r.status() == v1::CACHE_STATUS_COMPILED);
      CHECK(CubinSm(r.artifact().payload()) == std::stoi(std::string(sm).substr(3)));
      const std::map<std::string, std::string> names = LoweredNames(r.artifact());
      CHECK(names == std::map<std::string, std::string>{{"scale<double>", "_Z5scaleIdEvPT_S0_i"},
                                                        {"scale<float>", "_Z5scaleIfEvPT_S0_i"}});
      std::set<std::string> entries;
      for (const v1::EntryMetadata& e : r.artifact().entries()) entries.insert(e.name());
      CHECK(entries == std::set<std::string>{"_Z5scaleIdEvPT_S0_i", "_Z5scaleIfEvPT_S0_i"});
      compiled.emplace_back(Scale(sm), r.artifact().payload());
      v1::CompileResult hit = CompileOne(*client, Scale(sm));
      REQUIRE(hit.status() == v1::CACHE_STATUS_HIT);
      CHECK(hit.artifact().payload() == r.artifact().payload());
      CHECK(LoweredNames(hit.artifact()) == names);
    }
    // The toolkit's <cuda_fp16.h>, resolved by the daemon.
    v1::CompileResult half = CompileOne(*client, Cuda("half_axpy.cu", "sm_90"));
    INFO(half.error().message());
    REQUIRE(half.status() == v1::CACHE_STATUS_COMPILED);
    REQUIRE(half.artifact().entries_size() == 1);
    CHECK(half.artifact().entries(0).name() == "half_axpy");
    compiled.emplace_back(Cuda("half_axpy.cu", "sm_90"), half.artifact().payload());
  }
  CheckHitsAfterRestart(daemon, compiled);
}

TEST_CASE("a CUDA C++ cubin's machine code is what ptxas -c and nvlink make of NVRTC's PTX",
          "[integration][cuda][cuda-cpp]") {
  QDC_REQUIRE_CUDA_BUILT();
  QDC_REQUIRE_TOOLKIT_TOOLS();
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  auto client = daemon.Connect();
  struct Case {
    const char* name;
    v1::KernelDescriptor descriptor;
    std::vector<std::string> ptxas_flags;
  };
  v1::KernelDescriptor limited = Scale("sm_90");
  limited.mutable_options()->set_max_registers(16);
  v1::KernelDescriptor no_fmad = Cuda("half_axpy.cu", "sm_100");
  no_fmad.mutable_options()->set_fmad(false);
  v1::KernelDescriptor lineinfo = Scale("sm_80");
  lineinfo.mutable_options()->set_lineinfo(true);
  const std::vector<Case> cases = {
      {"scale sm_90", Scale("sm_90"), {"-O3"}},
      {"scale sm_120", Scale("sm_120"), {"-O3"}},
      {"scale sm_90 max_registers 16", limited, {"-O3", "--maxrregcount=16"}},
      {"half_axpy sm_90", Cuda("half_axpy.cu", "sm_90"), {"-O3"}},
      {"half_axpy sm_100 no fmad", no_fmad, {"-O3", "--fmad=false"}},
      {"scale sm_80 lineinfo", lineinfo, {"-O3", "-lineinfo"}},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    const v1::Artifact a = CheckCompiledLikeToolkit(*client, dir, c.descriptor, c.ptxas_flags);
    CHECK_THAT(a.ptx(), Catch::Contains("NVIDIA NVVM Compiler"));
  }
}

TEST_CASE("CUDA C++ keys move with the source, each header, each macro, each option and the SM, and only then",
          "[integration][cuda][cuda-cpp]") {
  QDC_REQUIRE_CUDA_BUILT();
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  auto client = daemon.Connect();
  const v1::KernelDescriptor base = Scale("sm_90");
  const std::string key = ExplainKey(*client, base);
  auto with = [&](const Change& change) { return ExplainKey(*client, Changed(base, change)); };
  std::set<std::string> keys = {key};
  const std::vector<std::pair<const char*, Change>> perturbations = {
      {"source", [](auto& d) { d.set_ir(std::regex_replace(d.ir(), std::regex("x\\[i\\] ="), "x[i] +=")); }},
      {"a header's content", [](auto& d) { d.mutable_headers(1)->mutable_content()->append("\n// changed\n"); }},
      {"a define", [](auto& d) { d.add_defines("SCALE_BIAS=2"); }},
      {"an undefine", [](auto& d) { d.add_undefines("SCALE_BIAS"); }},
      {"a name expression", [](auto& d) { d.add_name_expressions("&scale<float>"); }},
      {"SM", [](auto& d) { d.mutable_target()->mutable_cuda()->set_sm("sm_100"); }},
      {"cuda_std", [](auto& d) { d.mutable_options()->set_cuda_std(20); }},
      {"extra_device_vectorization", [](auto& d) { d.mutable_options()->set_extra_device_vectorization(true); }},
      {"default_device", [](auto& d) { d.mutable_options()->set_default_device(true); }},
      {"relocatable_device_code", [](auto& d) { d.mutable_options()->set_relocatable_device_code(true); }},
      {"fast_math", [](auto& d) { d.mutable_options()->set_fast_math(true); }},
      {"fmad", [](auto& d) { d.mutable_options()->set_fmad(false); }},
      {"debug", [](auto& d) { d.mutable_options()->set_debug(true); }},
      {"lineinfo", [](auto& d) { d.mutable_options()->set_lineinfo(true); }},
      {"max_registers", [](auto& d) { d.mutable_options()->set_max_registers(32); }},
      {"opt_level 0", [](auto& d) { d.mutable_options()->set_opt_level(0); }},
      {"link_cudadevrt", [](auto& d) { d.mutable_options()->set_link_cudadevrt(true); }},
      {"a key extra", [](auto& d) { (*d.mutable_key_extras())["frontend"] = "2"; }},
  };
  for (const auto& [name, change] : perturbations) {
    INFO(name);
    CHECK(keys.insert(with(change)).second);
  }
  const std::vector<std::pair<const char*, Change>> equivalences = {
      {"header order", [](auto& d) { d.mutable_headers()->SwapElements(0, 1); }},
      {"name expression order", [](auto& d) { d.mutable_name_expressions()->SwapElements(0, 1); }},
      {"a repeated name expression", [](auto& d) { d.add_name_expressions("scale<float>"); }},
      {"opt_level 2 (nvJitLink's -O3)", [](auto& d) { d.mutable_options()->set_opt_level(2); }},
      {"link_libdevice (NVRTC links libdevice itself)", [](auto& d) { d.mutable_options()->set_link_libdevice(true); }},
      {"cuda_std 0 written out", [](auto& d) { d.mutable_options()->set_cuda_std(0); }},
  };
  for (const auto& [name, change] : equivalences) {
    INFO(name);
    CHECK(with(change) == key);
  }
  // Macro order does not matter either.
  v1::KernelDescriptor two = base;
  two.add_defines("A=1");
  two.add_defines("B");
  v1::KernelDescriptor swapped = base;
  swapped.add_defines("B");
  swapped.add_defines("A=1");
  CHECK(ExplainKey(*client, two) == ExplainKey(*client, swapped));

  // NVRTC's options do not split the keys of kinds that never read them.
  v1::KernelDescriptor llvm = Descriptor("cuda/saxpy.ll", "cuda:sm_90");
  const std::string llvm_key = ExplainKey(*client, llvm);
  llvm.mutable_options()->set_cuda_std(17);
  llvm.mutable_options()->set_default_device(true);
  CHECK(ExplainKey(*client, llvm) == llvm_key);

  // Explain names what the key is made of: each header, the macros.
  v1::ExplainRequest request;
  *request.add_kernels() = base;
  v1::KernelDescriptor defined = base;
  defined.add_defines("SCALE_BIAS=2");
  *request.add_kernels() = defined;
  auto explained = client->Explain(request);
  REQUIRE(explained.ok());
  std::set<std::string> names;
  for (const v1::KeyComponent& c : explained->explanations(0).components()) names.insert(c.name());
  CHECK(names.count("cuda.source") == 1);
  CHECK(names.count("cuda.header.scale_ops.cuh") == 1);
  CHECK(names.count("cuda.header.detail/bias.cuh") == 1);
  CHECK(names.count("cuda.name_expressions") == 1);
  const std::set<std::string> differing(explained->differing().begin(), explained->differing().end());
  CHECK(differing == std::set<std::string>{"cuda", "cuda.defines"});
}

TEST_CASE("link_cudadevrt links the device runtime into a CUDA C++ kernel's cubin, reusing its PTX",
          "[integration][cuda][cuda-cpp]") {
  QDC_REQUIRE_CUDA_BUILT();
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  auto client = daemon.Connect();
  v1::KernelDescriptor d = Cuda("graph_condition.cu", "sm_90");
  d.mutable_options()->set_relocatable_device_code(true);
  v1::CompileResult plain = CompileOne(*client, d);
  INFO(plain.error().message());
  REQUIRE(plain.status() == v1::CACHE_STATUS_COMPILED);
  d.mutable_options()->set_link_cudadevrt(true);
  v1::CompileResult linked = CompileOne(*client, d);
  INFO(linked.error().message());
  REQUIRE(linked.status() == v1::CACHE_STATUS_STAGE_HIT);  // NVRTC's PTX is the same; only the link differs
  CHECK(linked.artifact().artifact_key() != plain.artifact().artifact_key());
  CHECK(CubinSm(linked.artifact().payload()) == 90);
  CHECK(linked.artifact().payload().size() > plain.artifact().payload().size());  // libcudadevrt's code is in
  CHECK(CompileOne(*client, d).status() == v1::CACHE_STATUS_HIT);
}

TEST_CASE("bad CUDA C++ is refused precisely, before or by NVRTC, and nothing is stored",
          "[integration][cuda][cuda-cpp]") {
  QDC_REQUIRE_CUDA_BUILT();
  TempDir dir;
  DaemonProcess daemon(dir.path(), {"--max-ir-bytes", "64K"});
  daemon.Start();
  const pid_t pid = daemon.pid();
  auto client = daemon.Connect();
  auto scale = [](const Change& change) { return Changed(Scale("sm_90"), change); };
  const std::vector<std::tuple<const char*, v1::KernelDescriptor, Code, const char*>> cases = {
      {"a header not sent", scale([](auto& d) { d.mutable_headers()->RemoveLast(); }), Code::kInvalidArgument,
       "includes \"detail/bias.cuh\", which is neither among the headers sent nor a CUDA toolkit header"},
      {"a header sent twice", scale([](auto& d) {
         const v1::SourceFile copy = d.headers(0);
         *d.add_headers() = copy;
       }), Code::kInvalidArgument,
       "\"scale_ops.cuh\" is sent twice"},
      {"a header named by an absolute path",
       scale([](auto& d) { d.mutable_headers(0)->set_name("/usr/include/x.h"); }), Code::kInvalidArgument,
       "is an absolute path"},
      {"a header that includes a file outside",
       scale([](auto& d) { d.mutable_headers(1)->mutable_content()->append("\n#include \"../../etc/passwd\"\n"); }),
       Code::kInvalidArgument, "detail/bias.cuh:6: #include: \"../../etc/passwd\" has an empty"},
      {"a computed __has_include",
       scale([](auto& d) { d.set_ir("#define H <stdio.h>\n#if __has_include(H)\n#endif\n" + d.ir()); }),
       Code::kInvalidArgument, "kernel.cu:2: __has_include with a computed operand"},
      {"a syntax error", scale([](auto& d) { d.set_ir(std::regex_replace(d.ir(), std::regex("T\\(SCALE_BIAS\\)"), "T(")); }),
       Code::kInvalidArgument, "kernel.cu(8"},
      {"a name expression that names nothing", scale([](auto& d) { d.add_name_expressions("no_such_kernel<float>"); }),
       Code::kInvalidArgument, "no_such_kernel"},
      {"a C++ standard NVRTC does not have", scale([](auto& d) { d.mutable_options()->set_cuda_std(12); }),
       Code::kInvalidArgument, "cuda_std: 12 is not one of 0, 11, 14, 17 or 20"},
      {"a name expression that would add a line to NVRTC's own source",
       scale([](auto& d) { d.add_name_expressions("scale<float>\n#include \"/etc/passwd\""); }),
       Code::kInvalidArgument, "holds a newline"},
      {"a define whose value asks for a file", scale([](auto& d) { d.add_defines("PROBE=__has_include(\"/etc/passwd\")"); }),
       Code::kInvalidArgument, "define PROBE:1: __has_include: \"/etc/passwd\" is an absolute path"},
      {"a malformed define", scale([](auto& d) { d.add_defines("1X=2"); }), Code::kInvalidArgument,
       "is not NAME, NAME=VALUE"},
      {"a macro both defined and undefined", scale([](auto& d) {
         d.add_defines("SCALE_BIAS=3");
         d.add_undefines("SCALE_BIAS");
       }),
       Code::kInvalidArgument, "macro SCALE_BIAS is given more than once"},
      {"headers over the size limit",
       scale([](auto& d) { d.mutable_headers(1)->mutable_content()->append(70000, ' '); }),
       Code::kResourceExhausted, "the CUDA C++ source and its 2 headers are"},
      {"headers for another kind", [] {
         v1::KernelDescriptor d = Descriptor("cuda/saxpy.ll", "cuda:sm_90");
         d.add_headers()->set_name("x.h");
         return d;
       }(),
       Code::kInvalidArgument, "are for CUDA C++ input only"},
      {"an SM nothing reaches", scale([](auto& d) { d.mutable_target()->mutable_cuda()->set_sm("sm_60"); }),
       Code::kInvalidArgument, "unsupported CUDA SM 'sm_60' for cuda input"},
  };
  for (const auto& [name, descriptor, code, says] : cases) {
    INFO(name);
    v1::CompileResult r = CompileOne(*client, descriptor);
    REQUIRE(r.has_error());
    INFO(r.error().message());
    CHECK(r.error().code() == static_cast<int>(code));
    CHECK_THAT(r.error().message(), Catch::Contains(says));
  }
  auto listed = client->List(v1::ListRequest());
  REQUIRE(listed.ok());
  CHECK(listed->entries_size() == 0);
  CHECK(daemon.pid() == pid);
}

TEST_CASE("the CLI reads a .cu source's headers itself (-I, --header) and prints the lowered names",
          "[integration][cuda][cuda-cpp][cli]") {
  QDC_REQUIRE_CUDA_BUILT();
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  const std::string out = dir.path() + "/scale.cubin";
  const std::string source = TestData("cuda_cpp/scale.cu"), include = TestData("cuda_cpp/include");
  const nlohmann::json j = Json(Cli(daemon, {"compile", source, "--target", "cuda:sm_90", "-I", include,
                                             "--name-expression", "scale<float>", "-o", out, "--json"}));
  CHECK(j["status"] == "compiled");
  CHECK(j["lowered_names"]["scale<float>"] == "_Z5scaleIfEvPT_S0_i");
  CHECK(CubinSm(ReadFileOrDie(out)) == 90);
  // The same program through --header: the same key, so a hit.
  const nlohmann::json again = Json(
      Cli(daemon, {"compile", source, "--target", "cuda:sm_90", "--header",
                   "scale_ops.cuh=" + include + "/scale_ops.cuh", "--header",
                   "detail/bias.cuh=" + include + "/detail/bias.cuh", "--name-expression", "scale<float>", "--json"}));
  CHECK(again["status"] == "hit");
  // A define is part of the program.
  const nlohmann::json defined = Json(Cli(daemon, {"compile", source, "--target", "cuda:sm_90", "-I", include,
                                                   "-D", "SCALE_BIAS=3", "--json"}));
  CHECK(defined["status"] == "compiled");
  CHECK(defined["artifact_key"] != j["artifact_key"]);
  // Without -I the header is missing, and the daemon says what to send.
  const RunResult missing = Cli(daemon, {"compile", source, "--target", "cuda:sm_90"});
  CHECK(missing.exit_code != 0);
  CHECK_THAT(missing.err, Catch::Contains("send it as a header"));
}
