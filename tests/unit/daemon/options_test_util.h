// Parsing daemon options in unit tests: a fake environment and no default
// config file, so that nothing on the machine running the tests changes
// what they see.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "daemon/daemon_options.h"

namespace qdcache::daemon::testing {

// Parses `args` with a fake environment and no default config file.
inline Expected<DaemonOptions> Parse(std::vector<std::string> args, std::map<std::string, std::string> env = {}) {
  args.insert(args.begin(), "qdcached");
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  ConfigSources sources;
  sources.getenv = [env](const std::string& name) -> std::optional<std::string> {
    auto it = env.find(name);
    if (it == env.end()) return std::nullopt;
    return it->second;
  };
  sources.default_config_path = "/nonexistent/qdcached.toml";
  return ParseDaemonFlags(static_cast<int>(argv.size()), argv.data(), sources);
}

}  // namespace qdcache::daemon::testing
