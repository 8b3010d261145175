// The daemon's lifecycle: build everything from DaemonOptions, listen, and
// shut down by draining (stop accepting, finish in-flight requests and
// compiles, close the store).
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "common/expected.h"
#include "daemon/daemon_options.h"

namespace qdcache::daemon {

class Server {
 public:
  // Opens the store, probes the toolchain, and starts serving on the unix
  // socket (mode 0660) and, if configured, on TCP. `options` must have its
  // defaults filled in (WithDefaults). With `activation_fd` >= 0 (a
  // listening unix socket from TakeActivationSocket, owned by the Server from
  // here on, also on failure) it serves there instead of binding
  // options.socket_path, and never removes the socket's path: the service
  // manager owns it. With options.idle_exit > 0 and an `on_idle`, the server
  // calls on_idle once, from a watcher thread, after logging "idle for X,
  // exiting", when no RPC has been in flight or arrived for that long;
  // on_idle must not call Shutdown itself (it asks the owner to, as
  // RunDaemonMain does by raising SIGTERM).
  [[nodiscard]] static Expected<std::unique_ptr<Server>> Start(const DaemonOptions& options,
                                                               int activation_fd = -1,
                                                               std::function<void()> on_idle = {});
  virtual ~Server() = default;

  // Stops the idle timer, drains and stops; idempotent. Thread-safe.
  virtual void Shutdown() = 0;

  [[nodiscard]] virtual const std::string& toolchain_fingerprint() const = 0;
  // The unix socket path it serves (with socket activation: the passed socket's).
  [[nodiscard]] virtual const std::string& unix_socket_path() const = 0;

  // OK while the daemon can do its job: the unix socket still accepts
  // connections and the store answers a read. For the watchdog; any thread,
  // never blocks on compiles.
  [[nodiscard]] virtual Status CheckHealth() = 0;
};

}  // namespace qdcache::daemon
