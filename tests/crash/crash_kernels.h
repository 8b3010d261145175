// Distinct small kernels for the crash test: kernel `id` differs from every
// other id only in a constant, so each has its own artifact key and costs a
// real (if short) compile.
#pragma once

#include <cstdint>
#include <string>

#include "qdcache/v1/qdcache.pb.h"

namespace qdcache::crash {

struct KernelSpec {
  std::uint64_t id = 0;
  bool cuda = false;      // cuda:sm_90 (needs a CUDA build) instead of cpu:x86-64
  bool fast_key = false;  // also sent with fast key FastKeyOf(id) in kNamespace
};

inline constexpr const char* kNamespace = "crash";

// The fast key a kernel is aliased under when spec.fast_key is set.
[[nodiscard]] std::string FastKeyOf(std::uint64_t id);

// The compile descriptor of one kernel.
[[nodiscard]] v1::KernelDescriptor KernelDescriptorOf(const KernelSpec& spec);

// The target a kernel compiles for, as the wire message.
[[nodiscard]] v1::Target TargetOf(const KernelSpec& spec);

}  // namespace qdcache::crash
