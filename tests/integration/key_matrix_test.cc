// The artifact key through a real daemon (the Explain RPC, the same keying the
// compile path uses) on the repository's kernels: every input that can change
// the artifact changes the key; every one that cannot leaves it alone.
#include <catch2/catch.hpp>
#include <functional>
#include <regex>
#include <set>

#include "tests/support/daemon_process.h"
#include "tests/support/explain_key.h"
#include "tests/support/kernels.h"
#include "tests/support/subprocess.h"

using namespace qdcache;
using namespace qdcache::testing;

namespace {

using Change = std::function<void(v1::KernelDescriptor&)>;

struct Kernel {
  std::string file;
  std::string target;
};

std::vector<Kernel> Kernels() {
  std::vector<Kernel> k = {{"cpu/saxpy.ll", "cpu:x86-64"}, {"cpu/stencil2d.ll", "cpu:x86-64+avx2"},
                           {"cpu/block_reduce.ll", "cpu:skylake"},
                           {"amdgpu/saxpy.ll", "amdgpu:gfx90a"},
                           {"amdgpu/block_reduce.ll", "amdgpu:gfx1100"},
                           {"amdgpu/math.ll", "amdgpu:gfx942:sramecc-:xnack+"}};
  if (CudaBuilt()) {
    k.push_back({"cuda/saxpy.ll", "cuda:sm_90"});
    k.push_back({"cuda/stencil2d.ll", "cuda:sm_80"});
    k.push_back({"cuda/block_reduce.ll", "cuda:sm_75"});
  }
  return k;
}

void ReplaceIr(v1::KernelDescriptor& d, const std::string& pattern, const std::string& with) {
  std::string changed = std::regex_replace(d.ir(), std::regex(pattern), with);
  REQUIRE(changed != d.ir());
  d.set_ir(changed);
}

bool IsCuda(const v1::KernelDescriptor& d) { return d.target().has_cuda(); }
bool IsCpu(const v1::KernelDescriptor& d) { return d.target().has_cpu(); }
bool IsAmdgpu(const v1::KernelDescriptor& d) { return d.target().has_amdgpu(); }

// Renames every instruction result and basic block ("%x = ...", "x:") to
// "%v_x" / "v_x:", consistently.
void RenameLocals(v1::KernelDescriptor& d) {
  std::string ir = d.ir();
  std::set<std::string> names;
  const std::regex defined(R"((?:%([A-Za-z_][A-Za-z0-9_.]*) =)|(?:\n([A-Za-z_][A-Za-z0-9_.]*):))");
  for (auto it = std::sregex_iterator(ir.begin(), ir.end(), defined); it != std::sregex_iterator(); ++it) {
    names.insert((*it)[1].matched ? (*it)[1].str() : (*it)[2].str());
  }
  REQUIRE_FALSE(names.empty());
  for (const std::string& name : names) {
    const std::string escaped = std::regex_replace(name, std::regex(R"(\.)"), R"(\.)");
    ir = std::regex_replace(ir, std::regex("%" + escaped + "(?![A-Za-z0-9_.])"), "%v_" + name);
    ir = std::regex_replace(ir, std::regex("\n" + escaped + ":"), "\nv_" + name + ":");
  }
  d.set_ir(ir);
}

}  // namespace

TEST_CASE("inputs that cannot change the artifact leave the key alone", "[integration][keys]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  auto client = daemon.Connect();
  const std::vector<std::pair<const char*, Change>> neutral = {
      {"source_filename", [](auto& d) { ReplaceIr(d, R"(source_filename = "[^"]*")", R"(source_filename = "/elsewhere/x.c")"); }},
      {"comments and blank lines", [](auto& d) { d.set_ir("; a comment\n\n" + d.ir() + "\n; trailing comment\n"); }},
      {"local value and block names", RenameLocals},
      {"options spelled at their defaults", [](auto& d) {
         d.mutable_options()->set_opt_level(3);
         d.mutable_options()->set_fmad(true);
         d.mutable_options()->set_fast_math(false);
         d.mutable_options()->set_max_registers(0);
       }},
      {"cuda-only options on a cpu or amdgpu target", [](auto& d) {
         if (!IsCuda(d)) d.mutable_options()->set_max_registers(64);
       }},
      {"amdgpu-only options on a cuda or cpu target", [](auto& d) {
         if (!IsAmdgpu(d)) {
           d.mutable_options()->set_link_device_libs(true);
           d.mutable_options()->set_code_object_version(4);
           d.mutable_options()->set_wavefront_size(64);
         }
       }},
      {"feature order and duplicates", [](auto& d) {
         if (IsCpu(d)) {
           d.mutable_target()->mutable_cpu()->add_features("+fma");
           d.mutable_target()->mutable_cpu()->add_features("+bmi2");
         }
         if (IsAmdgpu(d) && d.target().amdgpu().features_size() > 0) {
           v1::AmdgpuTarget* t = d.mutable_target()->mutable_amdgpu();
           t->clear_features();
           for (const char* f : {"xnack+", "sramecc-", "xnack+"}) t->add_features(f);
         }
       }},
      {"amdgpu processor spelled in capitals", [](auto& d) {
         if (IsAmdgpu(d)) d.mutable_target()->mutable_amdgpu()->set_processor("GFX" + d.target().amdgpu().processor().substr(3));
       }},
  };
  for (const Kernel& k : Kernels()) {
    v1::KernelDescriptor base = Descriptor(k.file, k.target);
    v1::KernelDescriptor fma = base;
    if (IsCpu(base)) {
      // Compare feature order against a base that names the same features.
      base.mutable_target()->mutable_cpu()->add_features("+bmi2");
      base.mutable_target()->mutable_cpu()->add_features("+fma");
    }
    const std::string base_key = ExplainKey(*client, base);
    for (const auto& [name, change] : neutral) {
      INFO(k.file << " " << k.target << ": " << name);
      v1::KernelDescriptor d = base;
      change(d);
      CHECK(ExplainKey(*client, d) == base_key);
    }
  }
}

TEST_CASE("every input that can change the artifact changes the key", "[integration][keys]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  auto client = daemon.Connect();
  const std::vector<std::pair<const char*, Change>> changes = {
      {"instruction flags", [](auto& d) { ReplaceIr(d, d.ir().find(" nsw") != std::string::npos ? " nsw" : " inbounds", ""); }},
      {"an added function", [](auto& d) { d.mutable_ir()->append("\ndefine internal void @extra() {\n  ret void\n}\n"); }},
      {"opt level", [](auto& d) { d.mutable_options()->set_opt_level(2); }},
      {"fast math", [](auto& d) { d.mutable_options()->set_fast_math(true); }},
      {"fmad", [](auto& d) { d.mutable_options()->set_fmad(false); }},
      {"debug", [](auto& d) { d.mutable_options()->set_debug(true); }},
      {"key extra", [](auto& d) { (*d.mutable_key_extras())["QUADRANTS_FLAG"] = "1"; }},
      {"another key extra value", [](auto& d) { (*d.mutable_key_extras())["QUADRANTS_FLAG"] = "2"; }},
      {"target", [](auto& d) {
         if (IsCuda(d)) {
           d.mutable_target()->mutable_cuda()->set_sm(d.target().cuda().sm() == "sm_86" ? "sm_89" : "sm_86");
         } else if (IsAmdgpu(d)) {
           d.mutable_target()->mutable_amdgpu()->set_processor(d.target().amdgpu().processor() == "gfx1030" ? "gfx1031"
                                                                                                           : "gfx1030");
           d.mutable_target()->mutable_amdgpu()->clear_features();
         } else {
           d.mutable_target()->mutable_cpu()->add_features("+avx512f");
         }
       }},
      {"cpu name, cuda lineinfo or amdgpu code object version", [](auto& d) {
         if (IsCuda(d)) {
           d.mutable_options()->set_lineinfo(true);
         } else if (IsAmdgpu(d)) {
           d.mutable_options()->set_code_object_version(6);
         } else {
           d.mutable_target()->mutable_cpu()->set_cpu("znver3");
         }
       }},
      {"cuda max registers / cpu feature removal / amdgpu wavefront size", [](auto& d) {
         if (IsCuda(d)) {
           d.mutable_options()->set_max_registers(32);
         } else if (IsAmdgpu(d)) {
           d.mutable_options()->set_wavefront_size(64);
         } else {
           d.mutable_target()->mutable_cpu()->add_features("-avx");
         }
       }},
      {"cuda libdevice / amdgpu device libs / cpu opt level 0", [](auto& d) {
         if (IsCuda(d)) {
           d.mutable_options()->set_link_libdevice(true);
         } else if (IsAmdgpu(d)) {
           d.mutable_options()->set_link_device_libs(true);
         } else {
           d.mutable_options()->set_opt_level(0);
         }
       }},
  };
  for (const Kernel& k : Kernels()) {
    const v1::KernelDescriptor base = Descriptor(k.file, k.target);
    const std::string base_key = ExplainKey(*client, base);
    std::set<std::string> seen = {base_key};
    for (const auto& [name, change] : changes) {
      INFO(k.file << " " << k.target << ": " << name);
      v1::KernelDescriptor d = base;
      change(d);
      const std::string key = ExplainKey(*client, d);
      CHECK(key != base_key);
      CHECK(seen.insert(key).second);  // and no two changes collide
    }
  }
}

TEST_CASE("explain of two descriptors names the components that differ", "[integration][keys]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  auto client = daemon.Connect();
  v1::ExplainRequest request;
  v1::KernelDescriptor a = Descriptor("cpu/saxpy.ll", "cpu:x86-64");
  v1::KernelDescriptor b = a;
  b.mutable_options()->set_opt_level(1);
  (*b.mutable_key_extras())["X"] = "1";
  *request.add_kernels() = a;
  *request.add_kernels() = b;
  auto response = client->Explain(request);
  REQUIRE(response.ok());
  std::vector<std::string> differing(response->differing().begin(), response->differing().end());
  CHECK(differing == std::vector<std::string>{"key_extras.X", "options.opt_level"});
}
