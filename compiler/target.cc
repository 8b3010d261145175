// Target syntax: parsing, normalization and printing. No LLVM here; whether a
// target exists in the toolchain is target_validation.cc's job.
#include "compiler/target.h"

#include <algorithm>
#include <cctype>

namespace qdcache::compiler {
namespace {

constexpr std::string_view kCudaPrefix = "cuda:";
constexpr std::string_view kCpuPrefix = "cpu:";

std::string_view FeatureName(std::string_view feature) { return feature.substr(1); }

// "sm_" digits, then an optional single lower-case letter suffix ("sm_90a").
bool IsSmSyntax(std::string_view sm) {
  if (sm.size() < 4 || sm.substr(0, 3) != "sm_") return false;
  std::string_view rest = sm.substr(3);
  if (std::islower(static_cast<unsigned char>(rest.back()))) rest.remove_suffix(1);
  return !rest.empty() && std::all_of(rest.begin(), rest.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c));
  });
}

bool IsFeatureNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_';
}

Expected<Target> ParseCuda(std::string_view sm) {
  if (!IsSmSyntax(sm)) {
    return InvalidArgument(
        "CUDA target must be 'cuda:sm_<digits>[letter]' (lower case), got 'cuda:" +
        std::string(sm) + "'");
  }
  Target target;
  target.kind = TargetKind::kCuda;
  target.sm = std::string(sm);
  return target;
}

// The CPU name ends at the first '+' or ','. Features are then "+f" / "-f"
// tokens; a token ends at ',' or at the next '+', so feature names may contain
// '-' ("+amx-bf16"), and a leading "-f" needs a ',' before it ("x86-64,-avx").
Expected<Target> ParseCpu(std::string_view spec) {
  const size_t name_end = std::min(spec.find_first_of("+,"), spec.size());
  Target target;
  target.kind = TargetKind::kCpu;
  target.cpu = std::string(spec.substr(0, name_end));
  if (target.cpu.empty()) return InvalidArgument("CPU target has an empty CPU name");
  std::string_view rest = spec.substr(name_end);
  while (!rest.empty()) {
    if (rest.front() == ',') {
      rest.remove_prefix(1);
      continue;
    }
    if (rest.front() != '+' && rest.front() != '-') {
      return InvalidArgument("CPU feature must start with '+' or '-': '" + std::string(rest) + "'");
    }
    size_t end = 1;
    while (end < rest.size() && rest[end] != ',' && rest[end] != '+') ++end;
    std::string_view token = rest.substr(0, end);
    if (token.size() < 2)
      return InvalidArgument("empty CPU feature name in '" + std::string(spec) + "'");
    if (!std::all_of(token.begin() + 1, token.end(), IsFeatureNameChar)) {
      return InvalidArgument("invalid character in CPU feature '" + std::string(token) + "'");
    }
    target.features.emplace_back(token);
    rest.remove_prefix(end);
  }
  return target;
}

}  // namespace

std::string Target::ToString() const {
  if (kind == TargetKind::kCuda) return std::string(kCudaPrefix) + sm;
  std::string out = std::string(kCpuPrefix) + cpu;
  for (size_t i = 0; i < features.size(); ++i) {
    // A ',' before a leading "-f" keeps the output parseable (see ParseCpu).
    if (i > 0 || features[i].front() == '-') out += ',';
    out += features[i];
  }
  return out;
}

Expected<Target> ParseTarget(std::string_view spec) {
  if (spec.substr(0, kCudaPrefix.size()) == kCudaPrefix)
    return ParseCuda(spec.substr(kCudaPrefix.size()));
  if (spec.substr(0, kCpuPrefix.size()) == kCpuPrefix)
    return ParseCpu(spec.substr(kCpuPrefix.size()));
  return InvalidArgument("target must be 'cuda:sm_XX' or 'cpu:NAME[+feature,...]', got '" +
                         std::string(spec) + "'");
}

Expected<Target> NormalizeTarget(Target target) {
  if (target.kind == TargetKind::kCuda) {
    if (!IsSmSyntax(target.sm)) return InvalidArgument("invalid CUDA SM '" + target.sm + "'");
    if (!target.cpu.empty() || !target.features.empty()) {
      return InvalidArgument("CUDA target " + target.ToString() +
                             " must not carry a CPU name or features");
    }
    return target;
  }
  if (target.cpu.empty()) return InvalidArgument("CPU target has an empty CPU name");
  if (!target.sm.empty()) return InvalidArgument("CPU target must not carry an SM");
  for (const std::string& f : target.features) {
    if (f.size() < 2 || (f.front() != '+' && f.front() != '-')) {
      return InvalidArgument("CPU feature must be '+name' or '-name', got '" + f + "'");
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
