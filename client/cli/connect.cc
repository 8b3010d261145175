#include "client/cli/connect.h"

#include "client/socket_probe.h"
#include "common/paths.h"

namespace qdcache::cli {

Expected<std::unique_ptr<client::Client>> ConnectCli(client::ClientOptions options, bool is_ping) {
  QDC_ASSIGN_OR_RETURN(const bool spawn, client::ResolveAutospawn(options.spawn, !is_ping));
  options.spawn = spawn;
  if (!spawn && options.address.empty()) {
    const std::string socket =
        options.socket_path.empty() ? DefaultSocketPath() : options.socket_path;
    QDC_ASSIGN_OR_RETURN(client::SocketState state, client::ProbeSocket(socket));
    if (state != client::SocketState::kListening) {
      return Unavailable(
          "no qdcached is running at " + socket +
          (state == client::SocketState::kStale ? " (a stale socket: nobody listens)" : "") +
          "; start one with `qdcached --socket " + socket +
          "`, or let qdcache start one: --spawn (or QDCACHE_AUTOSPAWN=1)");
    }
  }
  return client::Client::Connect(std::move(options));
}

}  // namespace qdcache::cli
