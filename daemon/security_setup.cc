#include "daemon/security_setup.h"

#include <grp.h>
#include <grpcpp/security/server_credentials.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "daemon/call_auth.h"

namespace qdcache::daemon {
namespace {

Expected<std::string> ReadPem(const std::string& path, const char* flag) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return NotFound(std::string(flag) + ": cannot read " + path + ": " + std::strerror(errno));
  std::ostringstream s;
  s << in.rdbuf();
  if (s.str().find("-----BEGIN ") == std::string::npos) {
    return InvalidArgument(std::string(flag) + ": " + path + " holds no PEM data");
  }
  return s.str();
}

Status CheckCombinations(const DaemonOptions& o) {
  const bool tcp = !o.listen.empty();
  if (o.tls_cert_file.empty() != o.tls_key_file.empty()) {
    return InvalidArgument("--tls-cert and --tls-key go together");
  }
  if (!o.tls_client_ca_file.empty() && o.tls_cert_file.empty()) {
    return InvalidArgument("--tls-client-ca (mutual TLS) needs --tls-cert and --tls-key");
  }
  if (!tcp && (!o.tls_cert_file.empty() || !o.token_file.empty())) {
    return InvalidArgument(
        "--tls-cert, --tls-key, --tls-client-ca and --token-file secure the TCP port: add --listen "
        "HOST:PORT");
  }
  if (tcp && o.token_file.empty() && o.tls_client_ca_file.empty()) {
    return InvalidArgument(
        "--listen " + o.listen +
        " needs a way to authenticate TCP peers: --token-file FILE (bearer tokens) "
        "and/or --tls-client-ca FILE with --tls-cert/--tls-key (client certificates)");
  }
  return Status::Ok();
}

Expected<std::shared_ptr<grpc::ServerCredentials>> TlsCredentials(
    const DaemonOptions& o, std::shared_ptr<const auth::Authenticator> authenticator) {
  grpc::SslServerCredentialsOptions ssl(
      o.tls_client_ca_file.empty() ? GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE
                                   : GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
  grpc::SslServerCredentialsOptions::PemKeyCertPair pair;
  QDC_ASSIGN_OR_RETURN(pair.private_key, ReadPem(o.tls_key_file, "--tls-key"));
  QDC_ASSIGN_OR_RETURN(pair.cert_chain, ReadPem(o.tls_cert_file, "--tls-cert"));
  ssl.pem_key_cert_pairs.push_back(std::move(pair));
  if (!o.tls_client_ca_file.empty()) {
    QDC_ASSIGN_OR_RETURN(ssl.pem_root_certs, ReadPem(o.tls_client_ca_file, "--tls-client-ca"));
  }
  std::shared_ptr<grpc::ServerCredentials> credentials = grpc::SslServerCredentials(ssl);
  if (!credentials)
    return InvalidArgument("cannot build TLS credentials from --tls-cert/--tls-key");
  credentials->SetAuthMetadataProcessor(std::make_shared<TokenMetadataProcessor>(
      std::move(authenticator), !o.tls_client_ca_file.empty()));
  return credentials;
}

}  // namespace

Expected<gid_t> GroupId(const std::string& name) {
  std::vector<char> buf(16384);
  group g{};
  group* found = nullptr;
  int err = 0;
  while ((err = ::getgrnam_r(name.c_str(), &g, buf.data(), buf.size(), &found)) == ERANGE &&
         buf.size() < (1u << 24)) {
    buf.resize(buf.size() * 4);
  }
  if (err != 0) return Unavailable("cannot look up group '" + name + "': " + std::strerror(err));
  if (found == nullptr) return NotFound("--socket-group: no group named '" + name + "'");
  return found->gr_gid;
}

Expected<SecuritySetup> LoadSecurity(const DaemonOptions& o) {
  QDC_RETURN_IF_ERROR(CheckCombinations(o));
  SecuritySetup setup;
  QDC_ASSIGN_OR_RETURN(setup.signing, LoadSigning(o));
  if (!o.socket_group.empty()) {
    QDC_ASSIGN_OR_RETURN(setup.socket_group, GroupId(o.socket_group));
  }
  auth::AuthConfig config;
  config.daemon_uid = static_cast<std::uint32_t>(::geteuid());
  Expected<auth::Role> role = auth::ParseRole(o.tls_client_role);
  if (!role.ok()) return role.status().WithContext("--tls-client-role");
  config.cert_role = *role;
  Expected<auth::ReadCompile> read_compile = auth::ParseReadCompile(o.read_compile);
  if (!read_compile.ok()) return read_compile.status().WithContext("--read-compile");
  config.read_compile = *read_compile;
  if (!o.token_file.empty()) {
    Expected<auth::TokenTable> tokens = auth::TokenTable::Load(o.token_file);
    if (!tokens.ok()) return tokens.status().WithContext("--token-file");
    config.tokens = std::move(tokens).value();
  }
  const std::size_t token_count = config.tokens.size();
  setup.authenticator = std::make_shared<const auth::Authenticator>(std::move(config));
  if (o.listen.empty()) return setup;

  setup.tcp_client_certs = !o.tls_client_ca_file.empty();
  if (o.tls_cert_file.empty()) {
    setup.tcp_credentials = grpc::InsecureServerCredentials();
    setup.tcp_summary = "no TLS, " + std::to_string(token_count) + " bearer token(s)";
    spdlog::warn(
        "TCP {} without TLS: bearer tokens travel in clear text (add --tls-cert/--tls-key)",
        o.listen);
  } else {
    QDC_ASSIGN_OR_RETURN(setup.tcp_credentials, TlsCredentials(o, setup.authenticator));
    setup.tcp_summary = std::string("TLS") +
                        (setup.tcp_client_certs ? ", client certificates required" : "") + ", " +
                        std::to_string(token_count) + " bearer token(s)";
  }
  return setup;
}

}  // namespace qdcache::daemon
