// TCP authentication and roles against a real daemon on a loopback port that
// the kernel picks (--listen 127.0.0.1:0): server and mutual TLS with
// certificates made by openssl at test time, bearer tokens, each role against
// each RPC, tenants of aliases, and the identities of unix-socket peers.
#include <grp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "tests/support/cli_json.h"
#include "tests/support/daemon_process.h"
#include "tests/support/kernels.h"
#include "tests/support/subprocess.h"
#include "tests/support/test_pki.h"

using namespace qdcache;
using namespace qdcache::testing;

namespace {

const std::string kReaderToken = "reader-token-5f2b9c0d1e7a";
const std::string kWriterToken = "writer-token-8a7c6b5d4e3f";
const std::string kOtherWriterToken = "writer2-token-102938475a";
const std::string kAdminToken = "admin-token-0f1e2d3c4b5a6";
const std::string kWrongToken = "wrong-token-99887766554433";
const std::string kClientCn = "ci-runner";
constexpr uid_t kOtherUid = 65534;  // "nobody"

// Every RPC with the least role that may call it (docs/protocol.md).
struct Rpc {
  const char* name;
  int needs;  // 0 read, 1 write, 2 admin
};
const Rpc kRpcs[] = {{"health", 0},   {"Compile", 0}, {"Lookup", 0},  {"Explain", 0},
                     {"GetStats", 0}, {"List", 0},    {"Inspect", 0}, {"GetStats reset", 2},
                     {"Evict", 2},    {"Verify", 2}};
const char* const kRoleNames[] = {"read", "write", "admin"};

enum class Cert { kNone, kSigned, kSelfSigned };

// A test directory with certificates and a private token file.
struct AuthEnv {
  AuthEnv() : pki(dir / "pki", kClientCn) {
    ::chmod(dir.path().c_str(), 0755);
    tokens = dir / "tokens";
    WriteFileOrDie(tokens, "# name role token\nreader read " + kReaderToken + "\nwriter write " +
                               kWriterToken + "\nwriter2 write " + kOtherWriterToken +
                               "\nboss admin " + kAdminToken + "\n");
    REQUIRE(::chmod(tokens.c_str(), 0600) == 0);
  }

  std::vector<std::string> Tls() const {
    return {"--tls-cert", pki.server_cert, "--tls-key", pki.server_key};
  }
  std::vector<std::string> MutualTls() const {
    std::vector<std::string> flags = Tls();
    flags.insert(flags.end(), {"--tls-client-ca", pki.ca_cert});
    return flags;
  }
  std::vector<std::string> Tokens() const { return {"--token-file", tokens}; }

  // A daemon with `flags`, listening on a loopback port the kernel chooses
  // (unless !listen), in a directory of its own (socket, store, log).
  std::unique_ptr<DaemonProcess> Daemon(std::vector<std::string> flags, bool listen = true) {
    if (listen) flags.insert(flags.begin(), {"--listen", "127.0.0.1:0"});
    const std::string home = dir / ("daemon-" + std::to_string(daemons_++));
    std::filesystem::create_directories(home);
    return std::make_unique<DaemonProcess>(home, flags);
  }

  TempDir dir;
  TestPki pki;
  std::string tokens;

 private:
  int daemons_ = 0;
};

std::vector<std::string> Concat(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

struct Connection {
  bool tls = true;
  Cert cert = Cert::kNone;
  std::string token;
};

std::unique_ptr<client::Client> TcpClient(const AuthEnv& env, const DaemonProcess& daemon,
                                          const Connection& c) {
  client::ClientOptions o;
  o.address = daemon.TcpAddress();
  o.timeout = std::chrono::seconds(120);
  if (c.tls) o.tls_ca_file = env.pki.ca_cert;
  if (c.cert == Cert::kSigned) {
    o.tls_cert_file = env.pki.client_cert;
    o.tls_key_file = env.pki.client_key;
  } else if (c.cert == Cert::kSelfSigned) {
    o.tls_cert_file = env.pki.self_signed_cert;
    o.tls_key_file = env.pki.self_signed_key;
  }
  o.token = c.token;
  auto client = client::Client::Connect(o);
  REQUIRE(client.ok());
  return std::move(client).value();
}

v1::KernelDescriptor Saxpy() { return Descriptor("cpu/saxpy.ll", "cpu:x86-64"); }

v1::KernelDescriptor AliasedSaxpy(const std::string& fast_key) {
  v1::KernelDescriptor d = Saxpy();
  d.set_fast_key(fast_key);
  d.set_namespace_("ns");
  return d;
}

// The outcome of one compile: the call's status, or the item's error.
Status CompileStatus(client::Client& c, const v1::KernelDescriptor& d,
                     v1::CompileResult* result = nullptr) {
  v1::CompileRequest request;
  *request.add_kernels() = d;
  auto response = c.Compile(request);
  if (!response.ok()) return response.status();
  if (result) *result = response->results(0);
  const v1::CompileResult& r = response->results(0);
  if (r.status() == v1::CACHE_STATUS_ERROR)
    return Status(static_cast<Code>(r.error().code()), r.error().message());
  return Status::Ok();
}

v1::CacheStatus LookupStatus(client::Client& c, const std::string& fast_key) {
  v1::LookupRequest request;
  v1::FastKeyQuery* q = request.add_queries();
  q->set_fast_key(fast_key);
  q->set_namespace_("ns");
  *q->mutable_target() = Saxpy().target();
  auto response = c.Lookup(request);
  REQUIRE(response.ok());
  return response->results(0).status();
}

// The status of calling `rpc` (an RPC name of kRpcs) through `c`. `stored_key`
// names an artifact in the store, for Inspect.
Status Call(client::Client& c, const std::string& rpc, const std::string& stored_key) {
  if (rpc == "health") return c.Ping();
  if (rpc == "Compile") return CompileStatus(c, Saxpy());
  if (rpc == "Lookup") {
    v1::LookupRequest request;
    v1::FastKeyQuery* q = request.add_queries();
    q->set_fast_key("never-recorded");
    *q->mutable_target() = Saxpy().target();
    return c.Lookup(request).status();
  }
  if (rpc == "Explain") {
    v1::ExplainRequest request;
    *request.add_kernels() = Saxpy();
    return c.Explain(request).status();
  }
  if (rpc == "GetStats") return c.Stats().status();
  if (rpc == "GetStats reset") return c.Stats(/*reset=*/true).status();
  if (rpc == "List") return c.List(v1::ListRequest()).status();
  if (rpc == "Inspect") {
    v1::InspectRequest request;
    request.set_artifact_key(stored_key);
    return c.Inspect(request).status();
  }
  if (rpc == "Evict") {
    v1::EvictRequest request;
    request.set_older_than_seconds(365 * 24 * 3600);  // nothing is that old
    return c.Evict(request).status();
  }
  if (rpc == "Verify") return c.Verify().status();
  FAIL("unknown rpc " << rpc);
  return Status::Ok();
}

// Stores saxpy through the daemon's unix socket (root or the daemon's own uid:
// admin) and returns its artifact key.
std::string StoreSaxpy(const DaemonProcess& daemon) {
  v1::CompileResult r;
  REQUIRE(CompileStatus(*daemon.Connect(), Saxpy(), &r).ok());
  return r.artifact().artifact_key();
}

// Starting fails, and the daemon's log says `why`.
void RequireStartupRefused(DaemonProcess& daemon, const std::string& why) {
  try {
    daemon.Start();
  } catch (const std::runtime_error& e) {
    CHECK_THAT(e.what(), Catch::Contains(why));
    return;
  }
  FAIL("qdcached started although it should have refused: " << daemon.log());
}

}  // namespace

TEST_CASE("a TCP listener without a way to authenticate peers refuses to start",
          "[integration][auth]") {
  AuthEnv env;
  RequireStartupRefused(*env.Daemon({}), "needs a way to authenticate TCP peers");
  RequireStartupRefused(*env.Daemon(env.Tls()), "needs a way to authenticate TCP peers");
}

TEST_CASE("inconsistent TLS flags refuse to start", "[integration][auth]") {
  AuthEnv env;
  RequireStartupRefused(
      *env.Daemon({"--tls-cert", env.pki.server_cert, "--token-file", env.tokens}),
      "--tls-cert and --tls-key go together");
  RequireStartupRefused(*env.Daemon({"--tls-client-ca", env.pki.ca_cert}),
                        "needs --tls-cert and --tls-key");
  RequireStartupRefused(*env.Daemon(env.Tokens(), /*listen=*/false), "add --listen");
}

TEST_CASE("a token file others can read, or a malformed one, refuses to start",
          "[integration][auth]") {
  AuthEnv env;
  REQUIRE(::chmod(env.tokens.c_str(), 0644) == 0);
  RequireStartupRefused(*env.Daemon(env.Tokens()), "chmod 600");
  WriteFileOrDie(env.tokens, "writer write " + kWriterToken + "\nreader read\n");
  REQUIRE(::chmod(env.tokens.c_str(), 0600) == 0);
  RequireStartupRefused(*env.Daemon(env.Tokens()), env.tokens + ":2: expected 'NAME ROLE TOKEN'");
  WriteFileOrDie(env.tokens, "a write " + kWriterToken + "\nb read " + kWriterToken + "\n");
  RequireStartupRefused(*env.Daemon(env.Tokens()),
                        ":2: the token of 'b' is the same as that of 'a'");
}

TEST_CASE("without a token, or with a wrong one, every TCP call is UNAUTHENTICATED",
          "[integration][auth]") {
  AuthEnv env;
  auto daemon = env.Daemon(Concat(env.Tls(), env.Tokens()));
  daemon->Start();
  const std::string key = StoreSaxpy(*daemon);
  for (const std::string& token : {std::string(), kWrongToken}) {
    auto c = TcpClient(env, *daemon, {true, Cert::kNone, token});
    for (const Rpc& rpc : kRpcs) {
      INFO((token.empty() ? "no token, " : "wrong token, ") << rpc.name);
      Status s = Call(*c, rpc.name, key);
      CHECK(s.code() == Code::kUnauthenticated);
      CHECK_THAT(s.message(), Catch::Contains(token.empty() ? "Bearer <token>" : "not valid"));
    }
  }
  CHECK(StatsOf(*daemon).requests() == 1);  // only StoreSaxpy's compile reached the engine
  CHECK_THAT(daemon->log(), !Catch::Contains(kWrongToken));
}

TEST_CASE("each token role may call exactly the RPCs of its role", "[integration][auth]") {
  AuthEnv env;
  auto daemon = env.Daemon(Concat(env.Tls(), env.Tokens()));
  daemon->Start();
  const std::string key = StoreSaxpy(*daemon);
  const std::string tokens[] = {kReaderToken, kWriterToken, kAdminToken};
  for (int role = 0; role < 3; ++role) {
    auto c = TcpClient(env, *daemon, {true, Cert::kNone, tokens[role]});
    for (const Rpc& rpc : kRpcs) {
      INFO("role " << kRoleNames[role] << ", " << rpc.name);
      Status s = Call(*c, rpc.name, key);
      INFO(s.ToString());
      if (role >= rpc.needs) {
        CHECK(s.ok());
      } else {
        CHECK(s.code() == Code::kPermissionDenied);
        CHECK_THAT(s.message(),
                   Catch::Contains(std::string("needs role ") + kRoleNames[rpc.needs]));
      }
    }
  }
  for (const std::string& token : tokens) CHECK_THAT(daemon->log(), !Catch::Contains(token));
}

TEST_CASE("the stats reset zeroes the counters for an admin only", "[integration][auth]") {
  AuthEnv env;
  auto daemon = env.Daemon(Concat(env.Tls(), env.Tokens()));
  daemon->Start();
  StoreSaxpy(*daemon);
  auto writer = TcpClient(env, *daemon, {true, Cert::kNone, kWriterToken});
  CHECK(writer->Stats(/*reset=*/true).status().code() == Code::kPermissionDenied);
  REQUIRE(StatsOf(*daemon).compiles() == 1);
  auto admin = TcpClient(env, *daemon, {true, Cert::kNone, kAdminToken});
  auto before = admin->Stats(/*reset=*/true);
  REQUIRE(before.ok());
  CHECK(before->compiles() == 1);  // the reply holds the counters up to the reset
  v1::Stats after = StatsOf(*daemon);
  CHECK(after.compiles() == 0);
  CHECK(after.requests() == 0);
  CHECK(after.store_artifacts() == 1);  // the store's sizes stay
}

TEST_CASE("a read token's compile is served but stores nothing", "[integration][auth]") {
  AuthEnv env;
  auto daemon = env.Daemon(Concat(env.Tls(), env.Tokens()));
  daemon->Start();
  auto reader = TcpClient(env, *daemon, {true, Cert::kNone, kReaderToken});
  v1::CompileResult r;
  REQUIRE(CompileStatus(*reader, AliasedSaxpy("rk"), &r).ok());
  CHECK(r.status() == v1::CACHE_STATUS_COMPILED);
  CHECK(IsX86SharedObject(r.artifact().payload()));
  v1::Stats s = StatsOf(*daemon);
  CHECK(s.store_artifacts() == 0);
  CHECK(s.store_aliases() == 0);
  CHECK(s.stage_entries() == 0);
  CHECK(LookupStatus(*reader, "rk") == v1::CACHE_STATUS_MISS);

  // What a writer stores, a reader hits.
  auto writer = TcpClient(env, *daemon, {true, Cert::kNone, kWriterToken});
  REQUIRE(CompileStatus(*writer, Saxpy()).ok());
  CHECK(StatsOf(*daemon).store_artifacts() == 1);
  REQUIRE(CompileStatus(*reader, AliasedSaxpy("rk"), &r).ok());
  CHECK(r.status() == v1::CACHE_STATUS_HIT);
  CHECK(StatsOf(*daemon).store_aliases() == 0);
}

TEST_CASE("with --read-compile refuse a read token's compile is PERMISSION_DENIED",
          "[integration][auth]") {
  AuthEnv env;
  auto daemon = env.Daemon(Concat(Concat(env.Tls(), env.Tokens()), {"--read-compile", "refuse"}));
  daemon->Start();
  auto reader = TcpClient(env, *daemon, {true, Cert::kNone, kReaderToken});
  Status s = CompileStatus(*reader, Saxpy());
  CHECK(s.code() == Code::kPermissionDenied);
  CHECK_THAT(s.message(), Catch::Contains("Compile needs role write"));
  CHECK(LookupStatus(*reader, "any") == v1::CACHE_STATUS_MISS);  // reading is still allowed
  auto writer = TcpClient(env, *daemon, {true, Cert::kNone, kWriterToken});
  CHECK(CompileStatus(*writer, Saxpy()).ok());
}

TEST_CASE("each tenant sees only its own fast-key aliases", "[integration][auth]") {
  AuthEnv env;
  auto daemon = env.Daemon(Concat(env.Tls(), env.Tokens()));
  daemon->Start();
  auto writer = TcpClient(env, *daemon, {true, Cert::kNone, kWriterToken});
  REQUIRE(CompileStatus(*writer, AliasedSaxpy("shared-name")).ok());
  CHECK(LookupStatus(*writer, "shared-name") == v1::CACHE_STATUS_ALIAS_HIT);
  auto reader = TcpClient(env, *daemon, {true, Cert::kNone, kReaderToken});
  CHECK(LookupStatus(*reader, "shared-name") == v1::CACHE_STATUS_MISS);
  auto other = TcpClient(env, *daemon, {true, Cert::kNone, kOtherWriterToken});
  CHECK(LookupStatus(*other, "shared-name") == v1::CACHE_STATUS_MISS);
  CHECK(LookupStatus(*daemon->Connect(), "shared-name") == v1::CACHE_STATUS_MISS);  // a unix uid
  // The other writer's own alias is its own again.
  REQUIRE(CompileStatus(*other, AliasedSaxpy("shared-name")).ok());
  CHECK(LookupStatus(*other, "shared-name") == v1::CACHE_STATUS_ALIAS_HIT);
  CHECK(StatsOf(*daemon).store_aliases() == 2);
}

TEST_CASE("mutual TLS refuses peers without a certificate signed by the client CA",
          "[integration][auth]") {
  AuthEnv env;
  auto daemon = env.Daemon(env.MutualTls());
  daemon->Start();
  for (Cert cert : {Cert::kNone, Cert::kSelfSigned}) {
    auto c = TcpClient(env, *daemon, {true, cert, ""});
    for (const char* rpc : {"health", "Compile", "GetStats"}) {
      INFO((cert == Cert::kNone ? "no client certificate, " : "self-signed certificate, ") << rpc);
      Status s = Call(*c, rpc, "");
      CHECK(s.code() == Code::kUnavailable);  // the TLS handshake fails
    }
  }
  CHECK(StatsOf(*daemon).requests() == 0);
  auto plain = TcpClient(env, *daemon, {false, Cert::kNone, kAdminToken});
  CHECK_FALSE(plain->Ping().ok());
}

TEST_CASE("a signed client certificate without a token has the client role and a cert tenant",
          "[integration][auth]") {
  AuthEnv env;
  auto daemon = env.Daemon(env.MutualTls());  // --tls-client-role defaults to write
  daemon->Start();
  const std::string key = StoreSaxpy(*daemon);
  auto c = TcpClient(env, *daemon, {true, Cert::kSigned, ""});
  for (const Rpc& rpc : kRpcs) {
    INFO(rpc.name);
    Status s = Call(*c, rpc.name, key);
    if (rpc.needs <= 1) {
      CHECK(s.ok());
    } else {
      CHECK(s.code() == Code::kPermissionDenied);
      CHECK_THAT(s.message(), Catch::Contains("cert:" + kClientCn + " has role write"));
    }
  }
  REQUIRE(CompileStatus(*c, AliasedSaxpy("by-cert")).ok());
  CHECK(LookupStatus(*c, "by-cert") == v1::CACHE_STATUS_ALIAS_HIT);
  CHECK(LookupStatus(*daemon->Connect(), "by-cert") == v1::CACHE_STATUS_MISS);
}

TEST_CASE("client-certificate peers take the role given by --tls-client-role",
          "[integration][auth]") {
  AuthEnv env;
  auto daemon = env.Daemon(Concat(env.MutualTls(), {"--tls-client-role", "read"}));
  daemon->Start();
  auto c = TcpClient(env, *daemon, {true, Cert::kSigned, ""});
  REQUIRE(CompileStatus(*c, AliasedSaxpy("k")).ok());
  CHECK(StatsOf(*daemon).store_artifacts() == 0);
  CHECK(Call(*c, "Verify", "").code() == Code::kPermissionDenied);
}

TEST_CASE("with mutual TLS and tokens, a token decides the role and a wrong one is refused",
          "[integration][auth]") {
  AuthEnv env;
  auto daemon = env.Daemon(Concat(env.MutualTls(), env.Tokens()));
  daemon->Start();
  auto admin = TcpClient(env, *daemon, {true, Cert::kSigned, kAdminToken});
  CHECK(Call(*admin, "Verify", "").ok());
  auto reader = TcpClient(env, *daemon, {true, Cert::kSigned, kReaderToken});
  CHECK(Call(*reader, "List", "").ok());
  CHECK(Call(*reader, "Evict", "").code() == Code::kPermissionDenied);
  auto wrong = TcpClient(env, *daemon, {true, Cert::kSigned, kWrongToken});
  CHECK(Call(*wrong, "List", "").code() == Code::kUnauthenticated);
  auto cert_only = TcpClient(env, *daemon, {true, Cert::kSigned, ""});
  CHECK(Call(*cert_only, "Compile", "").ok());
  // A token does not replace the client certificate the TLS layer requires.
  auto token_only = TcpClient(env, *daemon, {true, Cert::kNone, kAdminToken});
  CHECK(Call(*token_only, "List", "").code() == Code::kUnavailable);
}

TEST_CASE("tokens without TLS work, with a clear-text warning", "[integration][auth]") {
  AuthEnv env;
  auto daemon = env.Daemon(env.Tokens());
  daemon->Start();
  CHECK_THAT(daemon->log(), Catch::Contains("clear text"));
  auto writer = TcpClient(env, *daemon, {false, Cert::kNone, kWriterToken});
  CHECK(CompileStatus(*writer, Saxpy()).ok());
  auto anonymous = TcpClient(env, *daemon, {false, Cert::kNone, ""});
  CHECK(Call(*anonymous, "Compile", "").code() == Code::kUnauthenticated);
  CHECK(Call(*anonymous, "GetStats", "").code() == Code::kUnauthenticated);
  CHECK_THAT(daemon->log(), !Catch::Contains(kWriterToken));
}

TEST_CASE("the qdcache CLI authenticates with --tls-ca, --token-file and QDCACHE_TOKEN",
          "[integration][auth][cli]") {
  AuthEnv env;
  auto daemon = env.Daemon(Concat(env.MutualTls(), env.Tokens()));
  daemon->Start();
  const std::vector<std::string> base = {CliBinary(),         "--addr",        daemon->TcpAddress(),
                                         "--tls-ca",          env.pki.ca_cert, "--tls-cert",
                                         env.pki.client_cert, "--tls-key",     env.pki.client_key};
  const std::string admin_file = env.dir / "admin.token";
  WriteFileOrDie(admin_file, kAdminToken + "\n");
  REQUIRE(::chmod(admin_file.c_str(), 0600) == 0);
  const std::string wrong_file = env.dir / "wrong.token";
  WriteFileOrDie(wrong_file, kWrongToken + "\n");

  CHECK(Json(Run(Concat(base, {"--token-file", admin_file, "stats", "--reset", "--json"})))
            .contains("compiles"));
  RunResult wrong = Run(Concat(base, {"--token-file", wrong_file, "ls"}));
  CHECK(wrong.exit_code == 1);
  CHECK_THAT(wrong.err, Catch::Contains("UNAUTHENTICATED"));
  CHECK_THAT(wrong.err + wrong.out, !Catch::Contains(kWrongToken));
  // The certificate alone is a writer: no evict.
  RunResult evict = Run(Concat(base, {"evict", "--older-than", "30d"}));
  CHECK(evict.exit_code == 1);
  CHECK_THAT(evict.err, Catch::Contains("PERMISSION_DENIED"));
  // QDCACHE_TOKEN from the environment (the child inherits it).
  REQUIRE(::setenv("QDCACHE_TOKEN", kAdminToken.c_str(), 1) == 0);
  RunResult with_env = Run(Concat(base, {"evict", "--older-than", "30d", "--json"}));
  ::unsetenv("QDCACHE_TOKEN");
  INFO(with_env.err);
  CHECK(with_env.exit_code == 0);
  CHECK_THAT(with_env.err + with_env.out, !Catch::Contains(kAdminToken));
}

TEST_CASE("unix-socket peers are writers, root and the daemon's uid admins",
          "[integration][auth][tenant]") {
  if (::geteuid() != 0) {
    WARN("not root: cannot act as a second uid; skipping");
    return;
  }
  TempDir dir;
  ::chmod(dir.path().c_str(), 0755);
  DaemonProcess daemon(dir.path());
  daemon.Start();
  REQUIRE(::chmod(daemon.socket_path().c_str(), 0666) == 0);  // let the other uid reach it
  const std::vector<std::string> cli = {CliBinary(), "--socket", daemon.socket_path()};
  // The daemon runs as root: root is admin.
  CHECK(Run(Concat(cli, {"verify"})).exit_code == 0);
  CHECK(Run(Concat(cli, {"stats", "--reset"})).exit_code == 0);
  // Another uid writes but does not administer.
  RunResult compile =
      Run(Concat(cli, {"compile", TestData("cpu/saxpy.ll"), "--target", "cpu:x86-64"}), kOtherUid);
  INFO(compile.err);
  CHECK(compile.exit_code == 0);
  const std::vector<std::vector<std::string>> admin_commands = {{"verify"},
                                                                {"evict", "--older-than", "30d"},
                                                                {"trim", "--max-size", "1G"},
                                                                {"stats", "--reset"}};
  for (const std::vector<std::string>& admin_only : admin_commands) {
    RunResult r = Run(Concat(cli, admin_only), kOtherUid);
    INFO(admin_only[0]);
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.err, Catch::Contains("PERMISSION_DENIED") && Catch::Contains("needs role admin") &&
                          Catch::Contains("uid:65534 has role write"));
  }
  CHECK(Run(Concat(cli, {"stats"}), kOtherUid).exit_code == 0);
}

TEST_CASE("the socket group (--socket-group) lets its members connect", "[integration][auth]") {
  if (::geteuid() != 0) {
    WARN("not root: cannot chgrp the socket or act as a second uid; skipping");
    return;
  }
  // Run(..., kOtherUid) drops to gid kOtherUid as well: that group's members
  // are what the socket must admit.
  const group* g = ::getgrgid(kOtherUid);
  REQUIRE(g != nullptr);
  const std::string group_name = g->gr_name;
  TempDir dir;
  ::chmod(dir.path().c_str(), 0755);
  {
    DaemonProcess daemon(dir.path());  // without the flag: root's group, no access
    daemon.Start();
    CHECK(Run({CliBinary(), "--socket", daemon.socket_path(), "ping"}, kOtherUid).exit_code == 1);
  }
  DaemonProcess daemon(dir.path(), {"--socket-group", group_name});
  daemon.Start();
  struct stat st {};
  REQUIRE(::stat(daemon.socket_path().c_str(), &st) == 0);
  CHECK(st.st_gid == kOtherUid);
  CHECK((st.st_mode & 07777) == 0660);
  RunResult r = Run({CliBinary(), "--socket", daemon.socket_path(), "ping"}, kOtherUid);
  INFO(r.err);
  CHECK(r.exit_code == 0);
}

TEST_CASE("an unknown socket group refuses to start", "[integration][auth]") {
  TempDir dir;
  DaemonProcess daemon(dir.path(), {"--socket-group", "qdcache-no-such-group"});
  RequireStartupRefused(daemon, "no group named 'qdcache-no-such-group'");
}

TEST_CASE("a TLS file with no PEM data is refused, never replaced by the system's roots",
          "[integration][auth]") {
  TempDir dir;
  WriteFileOrDie(dir / "empty.pem", "");
  for (const std::string& ca : {dir / "empty.pem", dir.path()}) {  // an empty file, a directory
    client::ClientOptions options;
    options.address = "127.0.0.1:1";
    options.tls_ca_file = ca;
    auto c = client::Client::Connect(options);
    INFO(ca);
    REQUIRE_FALSE(c.ok());
    CHECK_THAT(c.status().message(), Catch::Contains(ca));
  }
}
