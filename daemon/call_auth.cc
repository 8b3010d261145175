#include "daemon/call_auth.h"

#include <grpc/grpc_security_constants.h>
#include <spdlog/spdlog.h>

namespace qdcache::daemon {
namespace {

std::string_view View(const grpc::string_ref& s) { return std::string_view(s.data(), s.size()); }

}  // namespace

auth::NetworkCredentials NetworkCredentialsOf(
    const std::multimap<grpc::string_ref, grpc::string_ref>& metadata,
    const grpc::AuthContext* auth_context, bool verified_client_certs) {
  auth::NetworkCredentials c;
  auto [begin, end] = metadata.equal_range("authorization");
  for (auto it = begin; it != end; ++it) c.authorization.push_back(View(it->second));
  if (verified_client_certs && auth_context != nullptr && auth_context->IsPeerAuthenticated()) {
    std::vector<grpc::string_ref> cn = auth_context->FindPropertyValues(GRPC_X509_CN_PROPERTY_NAME);
    c.verified_cert_cn = cn.empty() ? std::string() : std::string(View(cn.front()));
  }
  return c;
}

CallAuthenticator::CallAuthenticator(const PeerRegistry& peers,
                                     std::shared_ptr<const auth::Authenticator> authenticator,
                                     bool verified_client_certs)
    : peers_(peers),
      authenticator_(std::move(authenticator)),
      verified_client_certs_(verified_client_certs) {}

Expected<auth::Identity> CallAuthenticator::Identify(const grpc::ServerContextBase& context) const {
  const std::string peer = context.peer();
  if (std::optional<std::uint32_t> uid = peers_.UidOf(peer))
    return authenticator_->ForUnixPeer(*uid);
  if (peer.rfind("fd:", 0) == 0) {
    return Status(Code::kUnauthenticated,
                  "connection " + peer + " has no recorded unix credentials");
  }
  std::shared_ptr<const grpc::AuthContext> auth_context = context.auth_context();
  return authenticator_->ForNetworkPeer(
      NetworkCredentialsOf(context.client_metadata(), auth_context.get(), verified_client_certs_));
}

Expected<auth::Identity> CallAuthenticator::Check(const grpc::ServerContextBase& context,
                                                  auth::Operation op) const {
  return Authorize(Identify(context), op, context.peer());
}

Expected<auth::Identity> CallAuthenticator::CheckUnixPeer(std::uint32_t uid, auth::Operation op) const {
  return Authorize(authenticator_->ForUnixPeer(uid), op, "uid " + std::to_string(uid));
}

Expected<auth::Identity> CallAuthenticator::Authorize(Expected<auth::Identity> who, auth::Operation op,
                                                      const std::string& peer) const {
  if (!who.ok()) {
    spdlog::warn("{} from {} refused: {}", auth::OperationName(op), peer, who.status().message());
    return who;
  }
  Status allowed = authenticator_->Authorize(*who, op);
  if (!allowed.ok()) {
    spdlog::warn("{} from {} ({}) refused: {}", auth::OperationName(op), peer, who->tenant, allowed.message());
    return allowed;
  }
  return who;
}

grpc::Status TokenMetadataProcessor::Process(const InputMetadata& auth_metadata,
                                             grpc::AuthContext* context, OutputMetadata*,
                                             OutputMetadata*) {
  Expected<auth::Identity> who = authenticator_->ForNetworkPeer(
      NetworkCredentialsOf(auth_metadata, context, verified_client_certs_));
  if (who.ok()) return grpc::Status::OK;
  spdlog::warn("call refused before dispatch: {}", who.status().message());
  return grpc::Status(grpc::StatusCode::UNAUTHENTICATED, who.status().message());
}

}  // namespace qdcache::daemon
