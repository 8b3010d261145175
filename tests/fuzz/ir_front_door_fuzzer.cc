// libFuzzer target: arbitrary bytes through the compiler's front door, the
// way the daemon keys every compile request before it compiles:
// Compiler::CanonicalIrDigest reads the bytes (foreign-input sniffing, text
// or bitcode reader, nesting limits, verifier), conforms the module to the
// target and prints it into SHA-256. Each input runs for one CPU and one CUDA
// target (the CUDA one only when nvJitLink is there), with and without debug
// info kept.
//
// LLVM itself comes from Debian uninstrumented, so coverage guides the
// fuzzer through our code only; LLVM-internal crashes it finds are LLVM's
// (see tests/fuzz/README.md), which is what compile workers isolate.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string_view>

#include "backends/in_process_compiler.h"
#include "compiler/compiler.h"

namespace {

using namespace qdcache;

compiler::Compiler& TheCompiler() {
  static const std::unique_ptr<compiler::Compiler> compiler = compiler::MakeInProcessCompiler();
  return *compiler;
}

compiler::Target Cpu() {
  compiler::Target t;
  t.kind = compiler::TargetKind::kCpu;
  t.cpu = "x86-64";
  return t;
}

compiler::Target Cuda() {
  compiler::Target t;
  t.kind = compiler::TargetKind::kCuda;
  t.sm = "sm_90";
  return t;
}

compiler::Target Amdgpu() {
  compiler::Target t;
  t.kind = compiler::TargetKind::kAmdgpu;
  t.cpu = "gfx942";
  return t;
}

void CheckDigest(std::string_view ir, const compiler::Target& target, bool keep_debug_info) {
  Expected<qdcache::Digest> digest = TheCompiler().CanonicalIrDigest(ir, target, keep_debug_info);
  if (digest.ok()) {
    // The same bytes must key the same way every time.
    Expected<qdcache::Digest> again = TheCompiler().CanonicalIrDigest(ir, target, keep_debug_info);
    if (!again.ok() || *again != *digest) {
      std::fprintf(stderr, "ir_front_door: digest is not deterministic for %s\n",
                   target.ToString().c_str());
      std::abort();
    }
    return;
  }
  // Refusals are input errors; INTERNAL would mean our front door let
  // something through that the toolchain then failed on.
  if (digest.status().code() == Code::kInternal) {
    std::fprintf(stderr, "ir_front_door: INTERNAL for %s: %s\n", target.ToString().c_str(),
                 digest.status().message().c_str());
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view ir(reinterpret_cast<const char*>(data), size);
  CheckDigest(ir, Cpu(), false);
  if (TheCompiler().toolchain().cuda_available) CheckDigest(ir, Cuda(), true);
  CheckDigest(ir, Amdgpu(), false);
  return 0;
}
