#include "client/cli/connect.h"

#include "client/endpoint.h"
#include "client/socket_probe.h"

namespace qdcache::cli {

Expected<std::unique_ptr<client::Client>> ConnectCli(client::ClientOptions options, bool is_ping) {
  QDC_RETURN_IF_ERROR(client::ResolveEndpoint(options));
  QDC_ASSIGN_OR_RETURN(const bool spawn, client::ResolveAutospawn(options.spawn, !is_ping));
  options.spawn = spawn;
  if (!spawn && options.address.empty()) {
    QDC_ASSIGN_OR_RETURN(client::SocketState state, client::ProbeSocket(options.socket_path));
    if (state != client::SocketState::kListening) {
      return Unavailable(client::NoDaemonMessage(options.socket_path, state == client::SocketState::kStale));
    }
  }
  return client::Client::Connect(std::move(options));
}

}  // namespace qdcache::cli
