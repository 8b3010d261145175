// The manifest of `qdcache warm`: JSON lines, one kernel descriptor per line,
// blank lines and lines starting with '#' ignored:
//
//   {"ir": "kernels/saxpy.ll", "target": "cuda:sm_90", "opt": 3,
//    "entries": ["saxpy"], "fast_key": "c0ffee", "namespace": "ci",
//    "fast_math": false, "no_fmad": false, "debug": false, "lineinfo": false,
//    "max_registers": 32, "link_libdevice": false,
//    "key_extras": {"frontend": "1.2"}}
//
// Only "ir" and "target" are required; the others mean what the `compile`
// flags of the same names mean ("kind": "ptx", say, where the file's
// extension does not tell). An unknown key is an error: a typo must not
// silently change what gets compiled.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "common/expected.h"
#include "qdcache/v1/qdcache.pb.h"

namespace qdcache::cli {

struct ManifestEntry {
  int line = 0;         // 1-based line of the manifest
  std::string ir_path;  // "ir", resolved against the manifest's directory
  std::string target;   // "target" as written
  // Everything but the IR, which is read only when the entry is sent.
  v1::KernelDescriptor descriptor;
};

// Parses a whole manifest. `name` names it in messages ("ci/kernels.jsonl",
// "<stdin>"); a relative "ir" is taken relative to `base_dir`. The first bad
// line is an INVALID_ARGUMENT "NAME:LINE: why" (not JSON, not an object, a
// missing or unknown key, a value of the wrong type or out of range, a
// target or fast key that does not parse). IR files are not opened here.
[[nodiscard]] Expected<std::vector<ManifestEntry>> ParseManifest(
    std::string_view text, const std::string& name, const std::filesystem::path& base_dir);

}  // namespace qdcache::cli
