#include <catch2/catch.hpp>
#include <functional>

#include "engine/artifact_key.h"

using namespace qdcache;
using namespace qdcache::engine;

namespace {

Digest KeyOf(const std::function<void(v1::KernelDescriptor&)>& change, std::string_view toolchain = "tc") {
  v1::KernelDescriptor d;
  d.set_ir("define void @f() {\n  ret void\n}\n");
  d.mutable_target()->mutable_cuda()->set_sm("sm_90");
  change(d);
  auto k = DecodeKernel(d, {});
  REQUIRE(k.ok());
  // The canonical IR digest is the compiler's business; here the raw bytes stand in.
  return KeyFromComponents("artifact", ArtifactKeyComponents(*k, Sha256(k->input.ir), toolchain));
}

}  // namespace

TEST_CASE("the artifact key is a function of its inputs", "[daemon]") {
  auto nothing = [](v1::KernelDescriptor&) {};
  CHECK(KeyOf(nothing) == KeyOf(nothing));
}

TEST_CASE("every input that can change the artifact changes the key", "[daemon]") {
  const Digest base = KeyOf([](v1::KernelDescriptor&) {});
  std::vector<std::pair<const char*, std::function<void(v1::KernelDescriptor&)>>> changes = {
      {"ir", [](auto& d) { d.mutable_ir()->append("\n; more"); }},
      {"sm", [](auto& d) { d.mutable_target()->mutable_cuda()->set_sm("sm_80"); }},
      {"opt", [](auto& d) { d.mutable_options()->set_opt_level(1); }},
      {"fast_math", [](auto& d) { d.mutable_options()->set_fast_math(true); }},
      {"fmad", [](auto& d) { d.mutable_options()->set_fmad(false); }},
      {"debug", [](auto& d) { d.mutable_options()->set_debug(true); }},
      {"lineinfo", [](auto& d) { d.mutable_options()->set_lineinfo(true); }},
      {"max_registers", [](auto& d) { d.mutable_options()->set_max_registers(64); }},
      {"link_libdevice", [](auto& d) { d.mutable_options()->set_link_libdevice(true); }},
      {"key_extras", [](auto& d) { (*d.mutable_key_extras())["FRONTEND_FLAG"].push_back('1'); }},
  };
  for (const auto& [name, change] : changes) {
    INFO(name);
    CHECK(KeyOf(change) != base);
  }
  INFO("toolchain");
  CHECK(KeyOf([](v1::KernelDescriptor&) {}, "other-toolchain") != base);
}

TEST_CASE("options spelled at their defaults give the same key", "[daemon]") {
  const Digest base = KeyOf([](v1::KernelDescriptor&) {});
  CHECK(KeyOf([](auto& d) {
          d.mutable_options()->set_opt_level(3);
          d.mutable_options()->set_fmad(true);
          d.mutable_options()->set_max_registers(0);
        }) == base);
}

TEST_CASE("the toolchain fingerprint covers every toolchain fact", "[daemon]") {
  compiler::ToolchainInfo info;
  info.llvm_version = "19.1.7";
  info.cuda_version = "13.0";
  info.nvjitlink_version = "13.0";
  info.ptx_isa_version = "8.5";
  info.libdevice_digest = "abcd";
  const std::string base = ToolchainFingerprint(info, "0.1.0");
  CHECK(base.size() == 64);
  CHECK(ToolchainFingerprint(info, "0.1.1") != base);
  for (std::string compiler::ToolchainInfo::*field :
       {&compiler::ToolchainInfo::llvm_version, &compiler::ToolchainInfo::cuda_version,
        &compiler::ToolchainInfo::nvjitlink_version, &compiler::ToolchainInfo::libc_version,
        &compiler::ToolchainInfo::ptx_isa_version, &compiler::ToolchainInfo::libdevice_digest}) {
    compiler::ToolchainInfo changed = info;
    (changed.*field).push_back('x');
    CHECK(ToolchainFingerprint(changed, "0.1.0") != base);
  }
}

TEST_CASE("stage keys read only the options their stage reads, and a later stage its previous output",
          "[engine]") {
  compiler::Target sm90;
  sm90.sm = "sm_90";
  const Digest ir = Sha256("ir");
  const compiler::StageSpec& ptx = compiler::StageOf(compiler::StageId::kIrToPtx);
  const compiler::StageSpec& cubin = compiler::StageOf(compiler::StageId::kPtxToCubin);
  auto ptx_key = [&](const Digest& input, const compiler::CompileOptions& o) {
    return StageKey(ptx, input, nullptr, "", sm90, o, "tc");
  };
  auto cubin_key = [&](std::string_view ptx_text, const compiler::CompileOptions& o) {
    return StageKey(cubin, ir, &ptx, ptx_text, sm90, o, "tc");
  };
  compiler::CompileOptions base, regs;
  regs.max_registers = 32;
  CHECK(ptx_key(ir, base) == ptx_key(ir, regs));
  CHECK(cubin_key("ptx", base) != cubin_key("ptx", regs));
  CHECK(cubin_key("ptx", base) != cubin_key("other ptx", base));
  CHECK(cubin_key("ptx", base) == StageKey(cubin, Sha256("another ir"), &ptx, "ptx", sm90, base, "tc"));
  compiler::CompileOptions o1;
  o1.opt_level = 1;
  CHECK(ptx_key(ir, base) != ptx_key(ir, o1));
  CHECK(ptx_key(ir, base) != ptx_key(Sha256("other"), base));
}
