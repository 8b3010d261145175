// Syntax of a target on the command line: "cuda:sm_90" or
// "cpu:x86-64[+feat|-feat]..." (feature tokens may also be separated by ',').
// Syntax only; whether the SM, CPU or features exist is the compiler's call.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/expected.h"

namespace qdcache {

struct TargetSpec {
  bool cuda = false;
  std::string sm;                     // cuda
  std::string cpu;                    // cpu
  std::vector<std::string> features;  // cpu: "+avx2", "-sse4a"
};

[[nodiscard]] Expected<TargetSpec> ParseTargetSpec(std::string_view spec);

// "sm_" digits, then an optional single lower-case letter ("sm_90a").
[[nodiscard]] bool IsCudaSmName(std::string_view sm);

// A character a CPU or feature name may hold: letters, digits, '_', '-', '.'.
// Anything else (',', '+', ':', spaces, control bytes) would make the target's
// text ambiguous or unreadable.
[[nodiscard]] bool IsTargetNameChar(char c);

}  // namespace qdcache
