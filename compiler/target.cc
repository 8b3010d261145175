// Target syntax: parsing, normalization and printing. No LLVM here; whether a
// target exists in the toolchain is target_validation.cc's job.
#include "compiler/target.h"

#include <algorithm>

#include "common/target_spec.h"

namespace qdcache::compiler {
namespace {

constexpr std::string_view kCudaPrefix = "cuda:";
constexpr std::string_view kCpuPrefix = "cpu:";

std::string_view FeatureName(std::string_view feature) { return feature.substr(1); }

bool IsName(std::string_view name) {
  return std::all_of(name.begin(), name.end(), IsTargetNameChar);
}

}  // namespace

std::string Target::ToString() const {
  if (kind == TargetKind::kCuda) return std::string(kCudaPrefix) + sm;
  std::string out = std::string(kCpuPrefix) + cpu;
  for (size_t i = 0; i < features.size(); ++i) {
    // A ',' before a leading "-f" keeps the output parseable (see common/target_spec.h).
    if (i > 0 || features[i].front() == '-') out += ',';
    out += features[i];
  }
  return out;
}

Expected<Target> ParseTarget(std::string_view spec) {
  QDC_ASSIGN_OR_RETURN(TargetSpec parsed, ParseTargetSpec(spec));
  Target target;
  target.kind = parsed.cuda ? TargetKind::kCuda : TargetKind::kCpu;
  target.sm = std::move(parsed.sm);
  target.cpu = std::move(parsed.cpu);
  target.features = std::move(parsed.features);
  return target;
}

Expected<Target> NormalizeTarget(Target target) {
  if (target.kind == TargetKind::kCuda) {
    if (!IsCudaSmName(target.sm)) return InvalidArgument("invalid CUDA SM '" + target.sm + "'");
    if (!target.cpu.empty() || !target.features.empty()) {
      return InvalidArgument("CUDA target " + target.ToString() +
                             " must not carry a CPU name or features");
    }
    return target;
  }
  if (target.cpu.empty()) return InvalidArgument("CPU target has an empty CPU name");
  if (!target.sm.empty()) return InvalidArgument("CPU target must not carry an SM");
  // The canonical text (ToString) must read back as this very target: keys,
  // aliases and `qdcache ls` show targets by it.
  if (target.cpu == "native") {
    return InvalidArgument(
        "CPU 'native' is not allowed: name a concrete CPU (the daemon may run on another machine)");
  }
  if (!IsName(target.cpu)) {
    return InvalidArgument("CPU name '" + target.cpu +
                           "' has a character other than letters, digits, '_', '-' and '.'");
  }
  for (const std::string& f : target.features) {
    if (f.size() < 2 || (f.front() != '+' && f.front() != '-')) {
      return InvalidArgument("CPU feature must be '+name' or '-name', got '" + f + "'");
    }
    if (!IsName(FeatureName(f))) {
      return InvalidArgument("CPU feature '" + f +
                             "' has a character other than letters, digits, '_', '-' and '.'");
    }
  }
  std::sort(target.features.begin(), target.features.end(),
            [](const std::string& a, const std::string& b) {
              return std::pair(FeatureName(a), a.front()) < std::pair(FeatureName(b), b.front());
            });
  target.features.erase(std::unique(target.features.begin(), target.features.end()),
                        target.features.end());
  for (size_t i = 1; i < target.features.size(); ++i) {
    if (FeatureName(target.features[i]) == FeatureName(target.features[i - 1])) {
      return InvalidArgument("CPU feature '" + std::string(FeatureName(target.features[i])) +
                             "' is both enabled and disabled");
    }
  }
  return target;
}

}  // namespace qdcache::compiler
