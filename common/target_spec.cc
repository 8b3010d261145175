#include "common/target_spec.h"

namespace qdcache {
namespace {

Status Bad(std::string_view spec, const std::string& why) {
  return InvalidArgument("target \"" + std::string(spec) + "\": " + why +
                         " (expected cuda:sm_XX or cpu:NAME[+feature...])");
}

}  // namespace

bool IsTargetNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-' || c == '.';
}

bool IsCudaSmName(std::string_view sm) {
  if (sm.size() < 4 || sm.substr(0, 3) != "sm_") return false;
  std::string_view rest = sm.substr(3);
  if (rest.back() >= 'a' && rest.back() <= 'z') rest.remove_suffix(1);
  if (rest.empty()) return false;
  for (char c : rest) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

Expected<TargetSpec> ParseTargetSpec(std::string_view spec) {
  TargetSpec t;
  if (spec.substr(0, 5) == "cuda:") {
    t.cuda = true;
    t.sm = std::string(spec.substr(5));
    if (!IsCudaSmName(t.sm)) return Bad(spec, "SM must look like sm_90 or sm_90a");
    return t;
  }
  if (spec.substr(0, 4) != "cpu:") return Bad(spec, "unknown target kind");
  std::string_view rest = spec.substr(4);
  // A CPU name may contain '-' ("x86-64") and so may feature names
  // ("amx-bf16"): features begin at the first '+' or ','; each feature token
  // starts with '+' or '-', and tokens are split at ',' and at '+'.
  std::size_t name_end = rest.find_first_of("+,");
  t.cpu = std::string(rest.substr(0, name_end));
  if (t.cpu.empty()) return Bad(spec, "CPU name is empty");
  for (char c : t.cpu) {
    if (!IsTargetNameChar(c)) return Bad(spec, "bad character in CPU name");
  }
  if (t.cpu == "native") return Bad(spec, "\"native\" is not a concrete CPU; name one (e.g. x86-64-v3)");
  if (name_end == std::string_view::npos) return t;
  std::string_view feats = rest.substr(name_end);
  std::size_t i = 0;
  while (i < feats.size()) {
    if (feats[i] == ',') {
      ++i;
      continue;
    }
    if (feats[i] != '+' && feats[i] != '-') return Bad(spec, "features must start with + or -");
    std::size_t j = i + 1;
    while (j < feats.size() && feats[j] != '+' && feats[j] != ',') {
      if (!IsTargetNameChar(feats[j])) return Bad(spec, "bad character in feature");
      ++j;
    }
    if (j == i + 1) return Bad(spec, "empty feature name");
    t.features.emplace_back(feats.substr(i, j - i));
    i = j;
  }
  return t;
}

}  // namespace qdcache
