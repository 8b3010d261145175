#include "auth/authenticator.h"

#include "common/tenant.h"

#include <string>

namespace qdcache::auth {
namespace {

Status Unauthenticated(std::string message) {
  return Status(Code::kUnauthenticated, std::move(message));
}

bool EqualsIgnoringCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

}  // namespace

std::optional<std::string_view> BearerToken(std::string_view authorization) {
  constexpr std::string_view kScheme = "bearer";
  if (authorization.size() <= kScheme.size() + 1 ||
      !EqualsIgnoringCase(authorization.substr(0, kScheme.size()), kScheme) ||
      authorization[kScheme.size()] != ' ') {
    return std::nullopt;
  }
  std::string_view token = authorization.substr(kScheme.size() + 1);
  while (!token.empty() && token.front() == ' ') token.remove_prefix(1);
  while (!token.empty() && token.back() == ' ') token.remove_suffix(1);
  if (token.empty()) return std::nullopt;
  return token;
}

Identity Authenticator::ForUnixPeer(std::uint32_t uid) const {
  const bool admin = uid == 0 || uid == config_.daemon_uid;
  return Identity{UidTenant(uid), admin ? Role::kAdmin : Role::kWrite};
}

Expected<Identity> Authenticator::ForNetworkPeer(const NetworkCredentials& c) const {
  if (c.authorization.size() > 1) {
    return Unauthenticated("more than one 'authorization' metadata entry");
  }
  if (c.authorization.size() == 1) {
    std::optional<std::string_view> token = BearerToken(c.authorization[0]);
    if (!token) return Unauthenticated("the 'authorization' metadata is not 'Bearer <token>'");
    if (config_.tokens.empty()) {
      return Unauthenticated(
          "a bearer token was sent, but this daemon accepts none (no --token-file)");
    }
    const TokenEntry* entry = config_.tokens.Find(*token);
    if (entry == nullptr) return Unauthenticated("the bearer token is not valid");
    return Identity{TokenTenant(entry->name), entry->role};
  }
  if (c.verified_cert_cn) {
    if (c.verified_cert_cn->empty()) {
      return Unauthenticated("the client certificate has no subject CN to name its tenant");
    }
    return Identity{CertTenant(*c.verified_cert_cn), config_.cert_role};
  }
  return Unauthenticated(
      "no credentials: send a bearer token ('authorization: Bearer <token>' metadata) or a client "
      "certificate signed by the daemon's client CA");
}

Status Authenticator::Authorize(const Identity& who, Operation op) const {
  const Role need = RequiredRole(op);
  if (op == Operation::kCompile && who.role == Role::kRead &&
      config_.read_compile == ReadCompile::kRefuse) {
    return Status(Code::kPermissionDenied,
                  "Compile needs role write on this daemon (--read-compile refuse); " + who.tenant +
                      " has role read");
  }
  if (Includes(who.role, need)) return Status::Ok();
  return Status(Code::kPermissionDenied, std::string(OperationName(op)) + " needs role " +
                                             std::string(RoleName(need)) + "; " + who.tenant +
                                             " has role " + std::string(RoleName(who.role)));
}

}  // namespace qdcache::auth
