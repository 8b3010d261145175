// One daemon setting, defined once: its name, help, type, and how it reads
// and shows its DaemonOptions field. The table of all of them
// (DaemonSettings) drives the command-line flags, the QDCACHED_* environment
// variables, the config file keys and --print-config.
//
// Naming: the setting "max-size" is the flag --max-size, the config file key
// max-size (kebab-case, exactly the flag's name) and the environment variable
// QDCACHED_MAX_SIZE (EnvName).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "common/expected.h"
#include "daemon/daemon_options.h"

namespace qdcache::daemon {

// What a value looks like in the config file; flags and environment
// variables are always text (the same text a TOML string would hold).
enum class ValueKind {
  kString,    // TOML string
  kBool,      // TOML boolean; as text: true/false, yes/no, on/off, 1/0
  kInteger,   // TOML integer
  kSize,      // TOML string "10G" or integer (bytes)
  kDuration,  // TOML string "10m" or integer (seconds)
};

struct Setting {
  std::string name;  // kebab-case, without "--"
  std::string help;  // one line: --help and the comment above the key in --print-config
  ValueKind kind = ValueKind::kString;
  // False for per-process settings (--ready-fd): a flag only, never read
  // from the environment or a file, not printed.
  bool configurable = true;
  // Printed as "set, not shown" by --print-config (never its value).
  bool secret = false;
  // Parses `text` into the field; INVALID_ARGUMENT without the setting's name
  // (the caller says where the text came from).
  std::function<Status(std::string_view text, DaemonOptions&)> apply{};
  // The field as text that `apply` reads back.
  std::function<std::string(const DaemonOptions&)> show{};
};

// "text", "boolean", "integer", "size", "duration".
[[nodiscard]] std::string_view KindName(ValueKind kind);

// QDCACHED_ + the name in upper snake case: "max-size" -> "QDCACHED_MAX_SIZE".
[[nodiscard]] std::string EnvName(std::string_view setting_name);

// Builders for the kinds of fields. Ranges are inclusive.
[[nodiscard]] Setting StringSetting(std::string name, std::string help, std::string DaemonOptions::*field);
[[nodiscard]] Setting ChoiceSetting(std::string name, std::string help, std::string DaemonOptions::*field,
                                    std::vector<std::string> choices);
[[nodiscard]] Setting BoolSetting(std::string name, std::string help, bool DaemonOptions::*field);
[[nodiscard]] Setting CountSetting(std::string name, std::string help, unsigned DaemonOptions::*field,
                                   unsigned min, unsigned max);
[[nodiscard]] Setting CountSetting(std::string name, std::string help, std::size_t DaemonOptions::*field,
                                   std::size_t min, std::size_t max);
[[nodiscard]] Setting CountSetting(std::string name, std::string help, int DaemonOptions::*field, int min,
                                   int max);
// A byte size in [min, max]; with `zero_means_none`, 0 is allowed too.
[[nodiscard]] Setting SizeSetting(std::string name, std::string help, std::uint64_t DaemonOptions::*field,
                                  std::uint64_t min, std::uint64_t max, bool zero_means_none);
[[nodiscard]] Setting DurationSetting(std::string name, std::string help,
                                      std::chrono::seconds DaemonOptions::*field);
// A duration that may be given in milliseconds too ("200ms", "2s"; an
// integer in the file is seconds); with `positive`, 0 is refused.
[[nodiscard]] Setting MillisSetting(std::string name, std::string help,
                                    std::chrono::milliseconds DaemonOptions::*field, bool positive);

}  // namespace qdcache::daemon
