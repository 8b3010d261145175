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
        &compiler::ToolchainInfo::ptx_isa_version, &compiler::ToolchainInfo::libdevice_digest,
        &compiler::ToolchainInfo::nvvm_version, &compiler::ToolchainInfo::nvrtc_version,
        &compiler::ToolchainInfo::cuda_headers_digest, &compiler::ToolchainInfo::cudadevrt_digest,
        &compiler::ToolchainInfo::compiler_rt_builtins_digest, &compiler::ToolchainInfo::device_libs_digest}) {
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
  const compiler::InputKind& llvm = compiler::InputKindOf(compiler::InputKindId::kLlvmText);
  auto ptx_key = [&](const Digest& input, const compiler::CompileOptions& o) {
    return StageKey(ptx, *StageInputComponent(ptx, nullptr, llvm, input, "", false), sm90, o, "tc");
  };
  auto cubin_key = [&](std::string_view ptx_text, const compiler::CompileOptions& o, const Digest& from = Sha256("ir")) {
    return StageKey(cubin, *StageInputComponent(cubin, &ptx, llvm, from, ptx_text, false), sm90, o, "tc");
  };
  const std::string text = ".version 8.0\n.target sm_90\n.address_size 64\n";
  compiler::CompileOptions base, regs;
  regs.max_registers = 32;
  CHECK(ptx_key(ir, base) == ptx_key(ir, regs));
  CHECK(cubin_key(text, base) != cubin_key(text, regs));
  CHECK(cubin_key(text, base) != cubin_key(text + ".global .u32 g;\n", base));
  CHECK(cubin_key(text, base) == cubin_key(text, base, Sha256("another ir")));
  // The cubin stage keys PTX in its canonical form: comments do not split it.
  CHECK(cubin_key("// Generated by LLVM\n" + text, base) == cubin_key(text, base));
  compiler::CompileOptions o1;
  o1.opt_level = 1;
  CHECK(ptx_key(ir, base) != ptx_key(ir, o1));
  CHECK(ptx_key(ir, base) != ptx_key(Sha256("other"), base));
}

TEST_CASE("a PTX input and LLVM IR that made the same PTX meet at one cubin stage key", "[engine]") {
  compiler::Target sm90;
  sm90.sm = "sm_90";
  const compiler::StageSpec& ptx = compiler::StageOf(compiler::StageId::kIrToPtx);
  const compiler::StageSpec& cubin = compiler::StageOf(compiler::StageId::kPtxToCubin);
  const compiler::InputKind& llvm = compiler::InputKindOf(compiler::InputKindId::kLlvmText);
  const compiler::InputKind& ptx_kind = compiler::InputKindOf(compiler::InputKindId::kPtx);
  const std::string text = "//\n// Generated by LLVM NVPTX Back-End\n.version 8.0\n.target sm_90\n";
  const std::string canonical = *ptx_kind.canonical_text(text, false);
  const std::optional<KeyComponent> from_llvm = StageInputComponent(cubin, &ptx, llvm, Sha256("ir"), text, false);
  const std::optional<KeyComponent> from_ptx =
      StageInputComponent(cubin, nullptr, ptx_kind, Sha256(canonical), "", false);
  REQUIRE(from_llvm.has_value());
  REQUIRE(from_ptx.has_value());
  CHECK(*from_llvm == *from_ptx);
  CHECK(from_ptx->name == "ptx");
  // Output that is not PTX is not cached at the cubin stage.
  CHECK_FALSE(StageInputComponent(cubin, &ptx, llvm, Sha256("ir"), "not ptx", false).has_value());
}
