// How the CLI connects: per-user spawning on by default (client/autospawn.h),
// and a clear message when no daemon runs and spawning is off.
#pragma once

#include <memory>

#include "client/client.h"
#include "common/expected.h"

namespace qdcache::cli {

// `options.spawn` holds --spawn/--no-spawn if given. Spawning then follows
// ResolveAutospawn with a default of on, except for `ping` (`is_ping`),
// which checks for a daemon rather than starting one. With spawning off and
// no daemon at the unix socket: UNAVAILABLE naming the socket and how to
// start a daemon. Otherwise as client::Client::Connect.
[[nodiscard]] Expected<std::unique_ptr<client::Client>> ConnectCli(client::ClientOptions options,
                                                                   bool is_ping);

}  // namespace qdcache::cli
