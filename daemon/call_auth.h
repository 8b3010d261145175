// gRPC glue of authentication: who made a call, and may they make it.
//
// Unix-socket calls are attributed by the connection's uid (PeerRegistry).
// TCP calls by their "authorization: Bearer <token>" metadata or, with mutual
// TLS, the verified client certificate's subject CN (auth::Authenticator).
// On a TLS port TokenMetadataProcessor refuses unauthenticated calls before
// any service sees them, the standard health service included; the services
// identify the caller again per call (the processor's auth context is shared
// by every call of a connection, so it cannot carry a per-call identity).
#pragma once

#include <grpcpp/security/auth_metadata_processor.h>
#include <grpcpp/server_context.h>

#include <memory>

#include "auth/authenticator.h"
#include "common/expected.h"
#include "daemon/unix_acceptor.h"

namespace qdcache::daemon {

class CallAuthenticator {
 public:
  // `peers` and `authenticator` must outlive this object.
  // `verified_client_certs`: the TCP port is mutual TLS, so a certificate in
  // a call's auth context was verified against the client CA.
  CallAuthenticator(const PeerRegistry& peers,
                    std::shared_ptr<const auth::Authenticator> authenticator,
                    bool verified_client_certs);

  // The caller's identity, or UNAUTHENTICATED saying what is missing.
  [[nodiscard]] Expected<auth::Identity> Identify(const grpc::ServerContextBase& context) const;

  // Identify, then Authorize `op`: the identity, or UNAUTHENTICATED /
  // PERMISSION_DENIED. Refusals are logged (peer, tenant, reason; no token).
  [[nodiscard]] Expected<auth::Identity> Check(const grpc::ServerContextBase& context,
                                               auth::Operation op) const;
  // Check for a unix-socket peer known by its uid (SO_PEERCRED), outside
  // gRPC: the lean transport's calls.
  [[nodiscard]] Expected<auth::Identity> CheckUnixPeer(std::uint32_t uid, auth::Operation op) const;

  [[nodiscard]] const auth::Authenticator& authenticator() const { return *authenticator_; }

 private:
  // Authorizes `op` for `who` (or passes its error on); refusals are logged
  // naming `peer`.
  [[nodiscard]] Expected<auth::Identity> Authorize(Expected<auth::Identity> who, auth::Operation op,
                                                   const std::string& peer) const;

  const PeerRegistry& peers_;
  std::shared_ptr<const auth::Authenticator> authenticator_;
  const bool verified_client_certs_;
};

// What a TCP call presented: its authorization metadata and, when the port
// verifies client certificates, the certificate's CN from `auth_context`.
[[nodiscard]] auth::NetworkCredentials NetworkCredentialsOf(
    const std::multimap<grpc::string_ref, grpc::string_ref>& metadata,
    const grpc::AuthContext* auth_context, bool verified_client_certs);

// Installed on the TLS server credentials: fails every call that has no
// valid identity with UNAUTHENTICATED. Runs inline (token checks are cheap).
class TokenMetadataProcessor final : public grpc::AuthMetadataProcessor {
 public:
  TokenMetadataProcessor(std::shared_ptr<const auth::Authenticator> authenticator,
                         bool verified_client_certs)
      : authenticator_(std::move(authenticator)), verified_client_certs_(verified_client_certs) {}

  bool IsBlocking() const override { return false; }
  grpc::Status Process(const InputMetadata& auth_metadata, grpc::AuthContext* context,
                       OutputMetadata* consumed_auth_metadata,
                       OutputMetadata* response_metadata) override;

 private:
  std::shared_ptr<const auth::Authenticator> authenticator_;
  const bool verified_client_certs_;
};

}  // namespace qdcache::daemon
