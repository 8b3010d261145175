#include <catch2/catch.hpp>

#include "engine/descriptor.h"

using namespace qdcache;
using namespace qdcache::engine;

namespace {

v1::KernelDescriptor CpuDescriptor() {
  v1::KernelDescriptor d;
  d.set_ir("define void @f() {\n  ret void\n}\n");
  d.mutable_target()->mutable_cpu()->set_cpu("x86-64");
  return d;
}

}  // namespace

TEST_CASE("unset options take their documented defaults", "[daemon]") {
  auto o = DecodeOptions(v1::CompileOptions(), compiler::TargetKind::kCuda);
  REQUIRE(o.ok());
  CHECK(*o == compiler::CompileOptions{});
  CHECK(o->opt_level == 3);
  CHECK(o->fmad);
}

TEST_CASE("cuda-only options are collapsed on cpu targets", "[daemon]") {
  v1::CompileOptions wire;
  wire.set_max_registers(32);
  wire.set_lineinfo(true);
  wire.set_link_libdevice(true);
  auto cpu = DecodeOptions(wire, compiler::TargetKind::kCpu);
  REQUIRE(cpu.ok());
  CHECK(*cpu == compiler::CompileOptions{});
  auto cuda = DecodeOptions(wire, compiler::TargetKind::kCuda);
  REQUIRE(cuda.ok());
  CHECK(cuda->max_registers == 32);
}

TEST_CASE("out-of-range options are refused naming the option", "[daemon]") {
  v1::CompileOptions wire;
  wire.set_opt_level(4);
  CHECK_THAT(DecodeOptions(wire, compiler::TargetKind::kCpu).status().message(), Catch::Contains("opt_level"));
  v1::CompileOptions regs;
  regs.set_max_registers(1000);
  CHECK_THAT(DecodeOptions(regs, compiler::TargetKind::kCuda).status().message(),
             Catch::Contains("max_registers"));
}

TEST_CASE("a descriptor without a target is refused", "[daemon]") {
  v1::KernelDescriptor d = CpuDescriptor();
  d.clear_target();
  CHECK(DecodeKernel(d, {}).status().code() == Code::kInvalidArgument);
}

TEST_CASE("IR above the size limit is RESOURCE_EXHAUSTED", "[daemon]") {
  DescriptorLimits limits;
  limits.max_ir_bytes = 8;
  auto k = DecodeKernel(CpuDescriptor(), limits);
  CHECK(k.status().code() == Code::kResourceExhausted);
}

TEST_CASE("key extras come out sorted by name", "[daemon]") {
  v1::KernelDescriptor d = CpuDescriptor();
  (*d.mutable_key_extras())["zeta"] = "1";
  (*d.mutable_key_extras())["alpha"] = "2";
  auto k = DecodeKernel(d, {});
  REQUIRE(k.ok());
  REQUIRE(k->key_extras.size() == 2);
  CHECK(k->key_extras[0].first == "alpha");
}

TEST_CASE("no_store and recache together are refused", "[daemon]") {
  v1::KernelDescriptor d = CpuDescriptor();
  d.set_no_store(true);
  d.set_recache(true);
  CHECK(DecodeKernel(d, {}).status().code() == Code::kInvalidArgument);
}

TEST_CASE("a namespace without a fast key is refused", "[daemon]") {
  v1::KernelDescriptor d = CpuDescriptor();
  d.set_namespace_("ns");
  CHECK_THAT(DecodeKernel(d, {}).status().message(), Catch::Contains("fast_key"));
}

TEST_CASE("bitcode is told apart from text by its magic, wrapped or not", "[daemon]") {
  v1::KernelDescriptor d = CpuDescriptor();
  CHECK(DecodeKernel(d, {})->input.kind == compiler::InputKindId::kLlvmText);
  d.set_ir(std::string("BC\xC0\xDE", 4));
  CHECK(DecodeKernel(d, {})->input.kind == compiler::InputKindId::kLlvmBitcode);
  d.set_ir(std::string("\xDE\xC0\x17\x0B", 4) + std::string(16, '\0'));
  CHECK(DecodeKernel(d, {})->input.kind == compiler::InputKindId::kLlvmBitcode);
}

TEST_CASE("an options field this daemon does not know is refused", "[daemon]") {
  v1::CompileOptions wire;
  wire.GetReflection()->MutableUnknownFields(&wire)->AddVarint(99, 1);
  auto o = DecodeOptions(wire, compiler::TargetKind::kCuda);
  CHECK(o.status().code() == Code::kInvalidArgument);
  CHECK_THAT(o.status().message(), Catch::Contains("99"));
}
