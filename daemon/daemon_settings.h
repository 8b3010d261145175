// The table of every daemon setting (setting.h): a flag, a QDCACHED_*
// environment variable and a config file key each.
#pragma once

#include <vector>

#include "daemon/setting.h"

namespace qdcache::daemon {

// Every daemon setting, in --help order. Adding a setting is one entry here
// (daemon_settings.cc) plus its DaemonOptions field.
[[nodiscard]] const std::vector<Setting>& DaemonSettings();

}  // namespace qdcache::daemon
