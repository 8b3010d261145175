#include "tests/crash/crash_kernels.h"

#include <stdexcept>

#include "client/wire_target.h"

namespace qdcache::crash {

std::string FastKeyOf(std::uint64_t id) { return "crash-kernel-" + std::to_string(id); }

v1::Target TargetOf(const KernelSpec& spec) {
  auto target = client::ParseWireTarget(spec.cuda ? "cuda:sm_90" : "cpu:x86-64");
  if (!target.ok()) throw std::logic_error(target.status().ToString());
  return *target;
}

v1::KernelDescriptor KernelDescriptorOf(const KernelSpec& spec) {
  const std::string n = std::to_string(spec.id);
  v1::KernelDescriptor d;
  if (spec.cuda) {
    d.set_ir(
        "target triple = \"nvptx64-nvidia-cuda\"\n"
        "define ptx_kernel void @fill(ptr %p, i64 %i) {\n"
        "  %q = getelementptr i64, ptr %p, i64 %i\n"
        "  %v = mul i64 %i, " +
        n +
        "\n"
        "  store i64 %v, ptr %q\n"
        "  ret void\n}\n");
    d.add_entry_points("fill");
  } else {
    d.set_ir(
        "define i64 @value(i64 %x) {\n"
        "  %a = mul i64 %x, " +
        n +
        "\n"
        "  %b = xor i64 %a, " +
        n +
        "\n"
        "  ret i64 %b\n}\n");
    d.add_entry_points("value");
  }
  *d.mutable_target() = TargetOf(spec);
  if (spec.fast_key) {
    d.set_fast_key(FastKeyOf(spec.id));
    d.set_namespace_(kNamespace);
  }
  return d;
}

}  // namespace qdcache::crash
