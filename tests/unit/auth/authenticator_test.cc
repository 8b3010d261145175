// Identities of peers and the role each RPC needs.
#include "auth/authenticator.h"

#include <catch2/catch.hpp>

using namespace qdcache;
using namespace qdcache::auth;

namespace {

constexpr std::string_view kReaderToken = "reader-token-0123456789";
constexpr std::string_view kWriterToken = "writer-token-0123456789";
constexpr std::string_view kAdminToken = "admin-token-01234567890";

AuthConfig Config() {
  std::string text;
  text.append("reader read ").append(kReaderToken).append("\n");
  text.append("writer write ").append(kWriterToken).append("\n");
  text.append("boss admin ").append(kAdminToken).append("\n");
  Expected<TokenTable> tokens = TokenTable::Parse(text, "tokens");
  REQUIRE(tokens.ok());
  AuthConfig c;
  c.tokens = std::move(tokens).value();
  c.daemon_uid = 4242;
  return c;
}

NetworkCredentials WithAuthorization(std::string_view value) {
  NetworkCredentials c;
  c.authorization.push_back(value);
  return c;
}

std::string Bearer(std::string_view token) { return "Bearer " + std::string(token); }

Status DenialOf(const Authenticator& a, Role role, Operation op) {
  return a.Authorize(Identity{"token:x", role}, op);
}

}  // namespace

TEST_CASE("unix peers are uid tenants with role write, admin for root and the daemon's uid",
          "[auth]") {
  Authenticator a(Config());
  Identity user = a.ForUnixPeer(1000);
  CHECK(user.tenant == "uid:1000");
  CHECK(user.role == Role::kWrite);
  CHECK(a.ForUnixPeer(0).role == Role::kAdmin);
  CHECK(a.ForUnixPeer(4242).role == Role::kAdmin);
  CHECK(a.ForUnixPeer(4242).tenant == "uid:4242");
}

TEST_CASE("a bearer token names its tenant and role", "[auth]") {
  Authenticator a(Config());
  const std::string reader = Bearer(kReaderToken), admin = "bEaReR  " + std::string(kAdminToken);
  Expected<Identity> r = a.ForNetworkPeer(WithAuthorization(reader));
  REQUIRE(r.ok());
  CHECK(r->tenant == "token:reader");
  CHECK(r->role == Role::kRead);
  Expected<Identity> b = a.ForNetworkPeer(WithAuthorization(admin));
  REQUIRE(b.ok());
  CHECK(b->tenant == "token:boss");
  CHECK(b->role == Role::kAdmin);
}

TEST_CASE("a verified client certificate without a token is a cert tenant with the configured role",
          "[auth]") {
  AuthConfig config = Config();
  config.cert_role = Role::kRead;
  Authenticator a(std::move(config));
  NetworkCredentials c;
  c.verified_cert_cn = "builder-7";
  Expected<Identity> id = a.ForNetworkPeer(c);
  REQUIRE(id.ok());
  CHECK(id->tenant == "cert:builder-7");
  CHECK(id->role == Role::kRead);
  c.verified_cert_cn = "";
  CHECK(a.ForNetworkPeer(c).status().code() == Code::kUnauthenticated);
}

TEST_CASE("a token takes precedence over the certificate, and a wrong one is refused", "[auth]") {
  Authenticator a(Config());
  const std::string writer = Bearer(kWriterToken);
  NetworkCredentials c = WithAuthorization(writer);
  c.verified_cert_cn = "builder-7";
  Expected<Identity> id = a.ForNetworkPeer(c);
  REQUIRE(id.ok());
  CHECK(id->tenant == "token:writer");
  const std::string wrong = Bearer("not-a-known-token-at-all");
  c = WithAuthorization(wrong);
  c.verified_cert_cn = "builder-7";
  Expected<Identity> refused = a.ForNetworkPeer(c);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.status().code() == Code::kUnauthenticated);
  CHECK_THAT(refused.status().message(), Catch::Contains("not valid"));
  CHECK_THAT(refused.status().message(), !Catch::Contains("not-a-known-token"));
}

TEST_CASE("missing, malformed and repeated credentials are UNAUTHENTICATED", "[auth]") {
  Authenticator a(Config());
  Expected<Identity> none = a.ForNetworkPeer(NetworkCredentials{});
  REQUIRE_FALSE(none.ok());
  CHECK(none.status().code() == Code::kUnauthenticated);
  CHECK_THAT(none.status().message(), Catch::Contains("Bearer <token>"));
  for (std::string_view bad : {"Basic dXNlcjpwYXNz", "Bearer", "Bearer ", "Bearer", "Token abc"}) {
    INFO(bad);
    CHECK(a.ForNetworkPeer(WithAuthorization(bad)).status().code() == Code::kUnauthenticated);
  }
  const std::string one = Bearer(kReaderToken), two = Bearer(kAdminToken);
  NetworkCredentials twice = WithAuthorization(one);
  twice.authorization.push_back(two);
  CHECK(a.ForNetworkPeer(twice).status().code() == Code::kUnauthenticated);
}

TEST_CASE("a token sent to a daemon without a token file is refused", "[auth]") {
  Authenticator a(AuthConfig{});
  const std::string reader = Bearer(kReaderToken);
  Expected<Identity> id = a.ForNetworkPeer(WithAuthorization(reader));
  REQUIRE_FALSE(id.ok());
  CHECK_THAT(id.status().message(), Catch::Contains("no --token-file"));
}

TEST_CASE("each operation needs its role", "[auth]") {
  Authenticator a(Config());
  const Operation read_ops[] = {Operation::kHealth,  Operation::kCompile,  Operation::kLookup,
                                Operation::kExplain, Operation::kGetStats, Operation::kList,
                                Operation::kInspect, Operation::kExport,   Operation::kTargets};
  const Operation admin_ops[] = {Operation::kResetStats, Operation::kEvict, Operation::kVerify,
                                 Operation::kExportAllTenants, Operation::kImport, Operation::kShutdown};
  for (Role role : {Role::kRead, Role::kWrite, Role::kAdmin}) {
    for (Operation op : read_ops) {
      INFO(RoleName(role) << " " << OperationName(op));
      CHECK(DenialOf(a, role, op).ok());
    }
    for (Operation op : admin_ops) {
      INFO(RoleName(role) << " " << OperationName(op));
      Status s = DenialOf(a, role, op);
      CHECK(s.ok() == (role == Role::kAdmin));
      if (!s.ok()) {
        CHECK(s.code() == Code::kPermissionDenied);
        CHECK_THAT(s.message(), Catch::Contains("needs role admin"));
      }
    }
  }
}

TEST_CASE("a read peer's compile is served or refused as configured, never stored", "[auth]") {
  AuthConfig refuse = Config();
  refuse.read_compile = ReadCompile::kRefuse;
  Authenticator serving(Config()), refusing(std::move(refuse));
  const Identity reader{"token:reader", Role::kRead}, writer{"token:writer", Role::kWrite};
  CHECK(serving.Authorize(reader, Operation::kCompile).ok());
  CHECK_FALSE(Authenticator::MayWrite(reader));
  CHECK(Authenticator::MayWrite(writer));
  Status s = refusing.Authorize(reader, Operation::kCompile);
  CHECK(s.code() == Code::kPermissionDenied);
  CHECK_THAT(s.message(), Catch::Contains("Compile needs role write"));
  CHECK(refusing.Authorize(writer, Operation::kCompile).ok());
}

TEST_CASE("role and policy names parse and print", "[auth]") {
  for (Role r : {Role::kRead, Role::kWrite, Role::kAdmin}) CHECK(*ParseRole(RoleName(r)) == r);
  CHECK_FALSE(ParseRole("Admin").ok());
  CHECK(*ParseReadCompile("serve") == ReadCompile::kServe);
  CHECK(*ParseReadCompile("refuse") == ReadCompile::kRefuse);
  CHECK_FALSE(ParseReadCompile("maybe").ok());
  CHECK(Includes(Role::kAdmin, Role::kRead));
  CHECK_FALSE(Includes(Role::kRead, Role::kWrite));
}
