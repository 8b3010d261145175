#include "compiler/ptxas_info.h"

#include <charconv>
#include <optional>

namespace qdcache::compiler {
namespace {

// The number directly before " <unit>" in `line`, e.g. Before("Used 10 registers", "registers")
// = 10.
std::optional<int> NumberBefore(std::string_view line, std::string_view unit) {
  const std::string needle = " " + std::string(unit);
  for (size_t pos = line.find(needle); pos != std::string_view::npos;
       pos = line.find(needle, pos + 1)) {
    // The unit must end the word: "smem" but not "smemx".
    const size_t after = pos + needle.size();
    if (after < line.size() && line[after] != ',' && line[after] != ' ' && line[after] != '\r')
      continue;
    size_t start = pos;
    while (start > 0 && line[start - 1] >= '0' && line[start - 1] <= '9') --start;
    if (start == pos) continue;
    int value = 0;
    std::from_chars(line.data() + start, line.data() + pos, value);
    return value;
  }
  return std::nullopt;
}

// Text between the first pair of single quotes after `marker`.
std::optional<std::string> QuotedAfter(std::string_view line, std::string_view marker) {
  const size_t at = line.find(marker);
  if (at == std::string_view::npos) return std::nullopt;
  const size_t open = line.find('\'', at + marker.size());
  if (open == std::string_view::npos) return std::nullopt;
  const size_t close = line.find('\'', open + 1);
  if (close == std::string_view::npos) return std::nullopt;
  return std::string(line.substr(open + 1, close - open - 1));
}

}  // namespace

std::map<std::string, KernelResources> ParsePtxasInfoLog(std::string_view log) {
  std::map<std::string, KernelResources> result;
  std::optional<std::string> current;
  while (!log.empty()) {
    const size_t eol = log.find('\n');
    const std::string_view line = log.substr(0, eol);
    log = eol == std::string_view::npos ? std::string_view() : log.substr(eol + 1);

    if (auto name = QuotedAfter(line, "Compiling entry function")) {
      current = *name;
      result[*current];
      continue;
    }
    if (auto name = QuotedAfter(line, "Compiling function")) {  // a device function: not an entry
      current.reset();
      continue;
    }
    // nvJitLink appends its own "info    : used N registers, ..." summary whose
    // smem includes the SM's reserved shared memory; only ptxas's lines count.
    if (!current || line.substr(0, 5) != "ptxas" || line.find("Used ") == std::string_view::npos)
      continue;
    KernelResources& r = result[*current];
    if (auto n = NumberBefore(line, "registers")) r.registers = *n;
    r.shared_bytes = NumberBefore(line, "bytes smem").value_or(0);
    r.local_bytes = NumberBefore(line, "bytes lmem").value_or(0);
  }
  return result;
}

}  // namespace qdcache::compiler
