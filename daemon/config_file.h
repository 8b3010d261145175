// The daemon's config file: TOML, one top-level key per setting (its flag
// name, kebab-case: `max-size = "10G"`). Only settings of the table may
// appear; anything else is an error, never silently ignored.
#pragma once

#include <string>
#include <vector>

#include "common/expected.h"
#include "daemon/setting.h"

namespace qdcache::daemon {

// One key of the file, as the text Setting::apply reads.
struct ConfigValue {
  const Setting* setting = nullptr;  // points into the `settings` passed to ReadConfigFile
  std::string text;
  std::string where;  // "FILE:LINE", for error messages
};

// Reads `path`. NOT_FOUND if it does not exist, UNAVAILABLE if it cannot be
// read; INVALID_ARGUMENT naming the file and line for TOML syntax errors,
// unknown keys (with a hint for "max_size" spellings), tables, per-process
// settings (ready-fd), and values of the wrong TOML type.
[[nodiscard]] Expected<std::vector<ConfigValue>> ReadConfigFile(const std::string& path,
                                                                 const std::vector<Setting>& settings);

}  // namespace qdcache::daemon
