// --print-config: the effective configuration as a TOML config file, every
// configurable setting with its help as a comment. Feeding the output back
// as --config gives the same configuration (secrets excepted: they are never
// printed, only whether they are set).
#pragma once

#include <string>
#include <vector>

#include "daemon/daemon_options.h"
#include "daemon/setting.h"

namespace qdcache::daemon {

[[nodiscard]] std::string RenderConfig(const std::vector<Setting>& settings, const DaemonOptions& options);

// --print-config-reference: every setting as a Markdown table (flag,
// environment variable, config key, kind, default, help), the configuration
// reference of docs/operations.md, which a test keeps equal to this output.
// `defaults` are the built-in defaults (DaemonOptions{}).
[[nodiscard]] std::string RenderConfigReference(const std::vector<Setting>& settings,
                                                const DaemonOptions& defaults);

// `text` as a TOML basic string, quotes included.
[[nodiscard]] std::string TomlString(std::string_view text);

}  // namespace qdcache::daemon
