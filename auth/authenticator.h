// Identities of peers and the decision whether they may do something.
//
// A peer's identity is its tenant (fast-key aliases are per tenant) and its
// role:
//   unix-socket peer          "uid:<N>"    write; admin when N is 0 or the
//                                          daemon's own uid
//   TCP peer with a token     "token:<NAME>"  the token's role
//   TCP peer with a verified  "cert:<CN>"  AuthConfig::cert_role
//   client certificate, no token
// A TCP peer that sends a token is judged by the token alone: a wrong token
// is refused even if its certificate would have been accepted.
//
// Thread-safety: const methods may be called concurrently.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "auth/role.h"
#include "auth/token_file.h"
#include "common/expected.h"

namespace qdcache::auth {

struct Identity {
  std::string tenant;  // "uid:1000", "token:ci", "cert:builder-7"
  Role role = Role::kRead;
};

struct AuthConfig {
  TokenTable tokens;              // empty: no bearer tokens accepted
  Role cert_role = Role::kWrite;  // of a certificate peer without a token
  ReadCompile read_compile = ReadCompile::kServe;
  std::uint32_t daemon_uid = 0;  // this uid (and 0) is admin on the unix socket
};

// What a TCP peer presented for one call.
struct NetworkCredentials {
  // Every value of the call's "authorization" metadata.
  std::vector<std::string_view> authorization;
  // Subject CN of the client certificate, set only when TLS verified the
  // certificate against the configured client CA.
  std::optional<std::string> verified_cert_cn;
};

class Authenticator {
 public:
  explicit Authenticator(AuthConfig config) : config_(std::move(config)) {}

  [[nodiscard]] Identity ForUnixPeer(std::uint32_t uid) const;

  // The identity of a TCP peer, or UNAUTHENTICATED saying what is missing or
  // wrong (never echoing the token).
  [[nodiscard]] Expected<Identity> ForNetworkPeer(const NetworkCredentials& credentials) const;

  // OK when `who` may perform `op`; PERMISSION_DENIED naming the role needed
  // otherwise. A read peer's Compile is allowed unless ReadCompile::kRefuse.
  [[nodiscard]] Status Authorize(const Identity& who, Operation op) const;

  // Whether `who`'s compiles are written to the store (artifacts, aliases).
  [[nodiscard]] static bool MayWrite(const Identity& who) {
    return Includes(who.role, Role::kWrite);
  }

  [[nodiscard]] const AuthConfig& config() const { return config_; }

 private:
  AuthConfig config_;
};

// The token of an "authorization" value "Bearer <token>" (scheme
// case-insensitive), or nullopt when the value has another form.
[[nodiscard]] std::optional<std::string_view> BearerToken(std::string_view authorization);

}  // namespace qdcache::auth
