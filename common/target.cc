// Target syntax: parsing, normalization and printing, per family. No LLVM
// here; whether a target exists in the toolchain is target_validation.cc's job.
#include "common/target.h"

#include <algorithm>
#include <array>

#include "common/compile_options.h"

namespace qdcache {
namespace {

std::string_view FeatureName(std::string_view feature) { return feature.substr(1); }

bool IsName(std::string_view name) { return std::all_of(name.begin(), name.end(), IsTargetNameChar); }

// Sorts `features` by their names (`name_of`), then by the whole text, drops
// repeats, and refuses a name given both ways ("<family> feature 'f' is
// <both>").
Status SortFeatures(std::vector<std::string>& features, std::string_view (*name_of)(std::string_view),
                    std::string_view family, std::string_view both) {
  std::sort(features.begin(), features.end(), [&](const std::string& a, const std::string& b) {
    return std::pair(name_of(a), std::string_view(a)) < std::pair(name_of(b), std::string_view(b));
  });
  features.erase(std::unique(features.begin(), features.end()), features.end());
  for (std::size_t i = 1; i < features.size(); ++i) {
    if (name_of(features[i]) == name_of(features[i - 1])) {
      return InvalidArgument(std::string(family) + " feature '" + std::string(name_of(features[i])) + "' is " +
                             std::string(both));
    }
  }
  return Status::Ok();
}

// ---- cuda:sm_XX[a|f]

Expected<Target> ParseCuda(std::string_view rest) {
  Target t;
  t.kind = TargetKind::kCuda;
  t.sm = std::string(rest);
  if (!IsCudaSmName(t.sm)) return InvalidArgument("SM must look like sm_90, sm_90a or sm_100f");
  return t;
}

Expected<Target> NormalizeCuda(Target target) {
  if (!IsCudaSmName(target.sm)) return InvalidArgument("invalid CUDA SM '" + target.sm + "'");
  if (!target.cpu.empty() || !target.features.empty()) {
    return InvalidArgument("CUDA target " + target.ToString() + " must not carry a CPU name or features");
  }
  return target;
}

std::string PrintCuda(const Target& t) { return t.sm; }

// ---- cpu:NAME[+feature|-feature...]

Expected<Target> ParseCpu(std::string_view rest) {
  Target t;
  t.kind = TargetKind::kCpu;
  // A CPU name may contain '-' ("x86-64") and so may feature names
  // ("amx-bf16"): features begin at the first '+' or ','; each feature token
  // starts with '+' or '-', and tokens are split at ',' and at '+'.
  const std::size_t name_end = rest.find_first_of("+,");
  t.cpu = std::string(rest.substr(0, name_end));
  if (t.cpu.empty()) return InvalidArgument("CPU name is empty");
  if (!IsName(t.cpu)) return InvalidArgument("bad character in CPU name");
  if (t.cpu == "native") return InvalidArgument("\"native\" is not a concrete CPU; name one (e.g. x86-64-v3)");
  if (name_end == std::string_view::npos) return t;
  const std::string_view feats = rest.substr(name_end);
  std::size_t i = 0;
  while (i < feats.size()) {
    if (feats[i] == ',') {
      ++i;
      continue;
    }
    if (feats[i] != '+' && feats[i] != '-') return InvalidArgument("features must start with + or -");
    std::size_t j = i + 1;
    while (j < feats.size() && feats[j] != '+' && feats[j] != ',') {
      if (!IsTargetNameChar(feats[j])) return InvalidArgument("bad character in feature");
      ++j;
    }
    if (j == i + 1) return InvalidArgument("empty feature name");
    t.features.emplace_back(feats.substr(i, j - i));
    i = j;
  }
  return t;
}

Expected<Target> NormalizeCpu(Target target) {
  // Far above any real name or list, so that a request cannot make the
  // checks and messages downstream (did-you-mean) work on megabytes.
  constexpr std::size_t kMaxName = 128;
  constexpr std::size_t kMaxFeatures = 512;
  if (target.cpu.empty()) return InvalidArgument("CPU target has an empty CPU name");
  if (target.cpu.size() > kMaxName) {
    return InvalidArgument("CPU name is " + std::to_string(target.cpu.size()) + " bytes, longer than any CPU (limit " +
                           std::to_string(kMaxName) + ")");
  }
  if (target.features.size() > kMaxFeatures) {
    return InvalidArgument("CPU target has " + std::to_string(target.features.size()) + " features (limit " +
                           std::to_string(kMaxFeatures) + ")");
  }
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
    if (f.size() > kMaxName + 1) {
      return InvalidArgument("CPU feature name is " + std::to_string(f.size() - 1) +
                             " bytes, longer than any feature (limit " + std::to_string(kMaxName) + ")");
    }
    if (f.size() < 2 || (f.front() != '+' && f.front() != '-')) {
      return InvalidArgument("CPU feature must be '+name' or '-name', got '" + f + "'");
    }
    if (!IsName(FeatureName(f))) {
      return InvalidArgument("CPU feature '" + f + "' has a character other than letters, digits, '_', '-' and '.'");
    }
  }
  QDC_RETURN_IF_ERROR(SortFeatures(target.features, FeatureName, "CPU", "both enabled and disabled"));
  return target;
}

std::string PrintCpu(const Target& t) {
  std::string out = t.cpu;
  for (size_t i = 0; i < t.features.size(); ++i) {
    // A ',' before a leading "-f" keeps the output parseable.
    if (i > 0 || t.features[i].front() == '-') out += ',';
    out += t.features[i];
  }
  return out;
}

// ---- amdgpu:gfxNNN[:feature+|:feature-...]

// Names far above any real one (see NormalizeCpu); AMD target ids have two
// features today.
constexpr std::size_t kMaxAmdgpuName = 64;
constexpr std::size_t kMaxAmdgpuFeatures = 16;

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  return out;
}

std::string_view AmdgpuFeatureName(std::string_view feature) { return feature.substr(0, feature.size() - 1); }

Expected<Target> ParseAmdgpu(std::string_view rest) {
  Target t;
  t.kind = TargetKind::kAmdgpu;
  std::size_t colon = rest.find(':');
  t.cpu = std::string(rest.substr(0, colon));
  if (t.cpu.empty()) return InvalidArgument("AMDGPU processor is empty (e.g. gfx942)");
  while (colon != std::string_view::npos) {
    const std::size_t next = rest.find(':', colon + 1);
    t.features.emplace_back(rest.substr(colon + 1, next == std::string_view::npos ? next : next - colon - 1));
    colon = next;
  }
  return t;
}

Expected<Target> NormalizeAmdgpu(Target target) {
  if (!target.sm.empty()) return InvalidArgument("AMDGPU target must not carry an SM");
  target.cpu = Lower(target.cpu);
  if (target.cpu.empty()) return InvalidArgument("AMDGPU target has an empty processor (e.g. gfx942)");
  if (target.cpu.size() > kMaxAmdgpuName) {
    return InvalidArgument("AMDGPU processor name is " + std::to_string(target.cpu.size()) +
                           " bytes, longer than any processor (limit " + std::to_string(kMaxAmdgpuName) + ")");
  }
  if (target.cpu == "native") {
    return InvalidArgument(
        "AMDGPU processor 'native' is not allowed: name a concrete one (the daemon may run on another machine)");
  }
  if (!IsName(target.cpu)) {
    return InvalidArgument("AMDGPU processor '" + target.cpu +
                           "' has a character other than letters, digits, '_', '-' and '.'");
  }
  if (target.features.size() > kMaxAmdgpuFeatures) {
    return InvalidArgument("AMDGPU target has " + std::to_string(target.features.size()) + " features (limit " +
                           std::to_string(kMaxAmdgpuFeatures) + ")");
  }
  for (std::string& f : target.features) {
    f = Lower(f);
    if (f.size() > kMaxAmdgpuName + 1) {
      return InvalidArgument("AMDGPU feature is " + std::to_string(f.size()) + " bytes, longer than any feature");
    }
    if (f.size() < 2 || (f.back() != '+' && f.back() != '-')) {
      return InvalidArgument("AMDGPU feature must be 'name+' or 'name-' (e.g. xnack+), got '" + f + "'");
    }
    const std::string_view name = AmdgpuFeatureName(f);
    if (!std::all_of(name.begin(), name.end(),
                     [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; })) {
      return InvalidArgument("AMDGPU feature '" + f + "' must be a name of letters and digits followed by + or -");
    }
  }
  QDC_RETURN_IF_ERROR(SortFeatures(target.features, AmdgpuFeatureName, "AMDGPU", "both on (+) and off (-)"));
  return target;
}

std::string PrintAmdgpu(const Target& t) {
  std::string out = t.cpu;
  for (const std::string& f : t.features) out += ":" + f;
  return out;
}

// The registry, in TargetKind order.
constexpr std::array kFamilies = {
    TargetFamily{TargetKind::kCuda, "cuda", "cuda:sm_XX[a|f]", kFamilyCuda, ArtifactKind::kCubin, ParseCuda,
                 NormalizeCuda, PrintCuda},
    TargetFamily{TargetKind::kCpu, "cpu", "cpu:NAME[+feature...]", kFamilyCpu, ArtifactKind::kSharedObject,
                 ParseCpu, NormalizeCpu, PrintCpu},
    TargetFamily{TargetKind::kAmdgpu, "amdgpu", "amdgpu:gfxNNN[:sramecc+|-][:xnack+|-]", kFamilyAmdgpu,
                 ArtifactKind::kHsaCodeObject, ParseAmdgpu, NormalizeAmdgpu, PrintAmdgpu},
};

std::string Grammars() {
  std::string out;
  for (const TargetFamily& f : kFamilies) out += (out.empty() ? "" : " or ") + std::string(f.grammar);
  return out;
}

}  // namespace

std::span<const TargetFamily> TargetFamilies() { return kFamilies; }

const TargetFamily& FamilyOf(TargetKind kind) { return kFamilies[static_cast<std::size_t>(kind)]; }

const TargetFamily* FindTargetFamily(std::string_view name) {
  for (const TargetFamily& f : kFamilies) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

std::string Target::ToString() const {
  const TargetFamily& family = FamilyOf(kind);
  return std::string(family.name) + ":" + family.print(*this);
}

Expected<Target> ParseTarget(std::string_view spec) {
  auto bad = [&](const std::string& why) {
    return InvalidArgument("target \"" + std::string(spec) + "\": " + why + " (expected " + Grammars() + ")");
  };
  const std::size_t colon = spec.find(':');
  const TargetFamily* family = colon == std::string_view::npos ? nullptr : FindTargetFamily(spec.substr(0, colon));
  if (family == nullptr) return bad("unknown target kind");
  Expected<Target> target = family->parse(spec.substr(colon + 1));
  if (!target.ok()) return bad(target.status().message());
  return target;
}

Expected<Target> NormalizeTarget(Target target) { return FamilyOf(target.kind).normalize(std::move(target)); }

bool IsTargetNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
         c == '.';
}

bool IsCudaSmName(std::string_view sm) {
  if (sm.size() < 4 || sm.substr(0, 3) != "sm_") return false;
  std::string_view rest = sm.substr(3);
  if (rest.back() >= 'a' && rest.back() <= 'z') rest.remove_suffix(1);
  if (rest.empty()) return false;
  return std::all_of(rest.begin(), rest.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace qdcache
