// Reads and checks every security setting of DaemonOptions before the daemon
// starts: the unix socket's group, the TCP port's TLS credentials and bearer
// tokens, and the authenticator that judges callers. Any problem is a startup
// error with a clear message; nothing is half-configured.
#pragma once

#include <sys/types.h>

#include <memory>
#include <optional>
#include <string>

#include "auth/authenticator.h"
#include "common/expected.h"
#include "daemon/daemon_options.h"
#include "daemon/signing_setup.h"

namespace grpc {
class ServerCredentials;
}

namespace qdcache::daemon {

struct SecuritySetup {
  std::optional<gid_t> socket_group;  // chgrp the unix socket to this
  std::shared_ptr<const auth::Authenticator> authenticator;
  // TCP (only when options.listen is set): the port's credentials, whether it
  // verifies client certificates, and a summary for the log.
  std::shared_ptr<grpc::ServerCredentials> tcp_credentials;
  bool tcp_client_certs = false;
  std::string tcp_summary;
  // Keys of signed shared entries (the remote tier's values, imports).
  SharedEntrySigning signing;
};

// Checks flag combinations and loads the files they name:
// - --tls-cert and --tls-key go together; --tls-client-ca needs them;
// - TLS, token and client-role flags need --listen;
// - --listen needs a way to authenticate peers (--token-file and/or
//   --tls-client-ca);
// - the token file must parse and be private (auth::TokenTable::Load);
// - --socket-group must name an existing group;
// - the signing and trusted keys must load (LoadSigning).
// INVALID_ARGUMENT / FAILED_PRECONDITION / NOT_FOUND with the flag at fault.
// Logs a warning when tokens would travel without TLS.
[[nodiscard]] Expected<SecuritySetup> LoadSecurity(const DaemonOptions& options);

// The gid of group `name`; NOT_FOUND when no such group exists.
[[nodiscard]] Expected<gid_t> GroupId(const std::string& name);

}  // namespace qdcache::daemon
