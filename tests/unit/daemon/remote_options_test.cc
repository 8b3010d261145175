#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "daemon/daemon_options.h"
#include "daemon/remote_setup.h"
#include "daemon/signing_setup.h"
#include "tests/unit/daemon/options_test_util.h"

using namespace qdcache;
using namespace qdcache::daemon;
using qdcache::daemon::testing::Parse;

namespace {


struct TempDir {
  TempDir() {
    std::string templ = std::filesystem::temp_directory_path().string() + "/qdcache-remote-opts-XXXXXX";
    REQUIRE(::mkdtemp(templ.data()) != nullptr);
    root = templ;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(root, ec);
  }
  std::filesystem::path root;
};

}  // namespace

TEST_CASE("the remote tier is off by default", "[daemon][remote]") {
  Expected<DaemonOptions> o = Parse({});
  REQUIRE(o.ok());
  CHECK(o->remote_url.empty());
  CHECK(o->remote_timeout.count() == 200);
  CHECK(o->remote_ttl.count() == 0);
}

TEST_CASE("remote flags fill their options", "[daemon][remote]") {
  Expected<DaemonOptions> o =
      Parse({"--remote", "redis-cluster://a:1,b:2/ci", "--remote-read-only", "--remote-timeout", "50ms",
             "--remote-ttl", "7d", "--remote-backoff", "5s", "--remote-failures", "4", "--remote-user", "ci"});
  REQUIRE(o.ok());
  CHECK(o->remote_url == "redis-cluster://a:1,b:2/ci");
  CHECK(o->remote_read_only);
  CHECK(o->remote_timeout.count() == 50);
  CHECK(o->remote_ttl.count() == 7 * 86400);
  CHECK(o->remote_backoff.count() == 5000);
  CHECK(o->remote_failures == 4);
  CHECK(o->remote_user == "ci");
}

TEST_CASE("a bad remote URL is a startup error naming the flag", "[daemon][remote]") {
  Expected<DaemonOptions> o = Parse({"--remote", "redis://h:99999"});
  REQUIRE_FALSE(o.ok());
  CHECK(o.status().code() == Code::kInvalidArgument);
  CHECK(o.status().message().starts_with("--remote:"));
  CHECK_FALSE(Parse({"--remote", "memcached://h:1"}).ok());
  CHECK_FALSE(Parse({"--remote-read-only"}).ok());  // needs --remote
  for (const char* policy : {"--remote-max-share-size=1M", "--remote-min-share-compile=1s", "--remote-backfill=false"}) {
    INFO(policy);
    const Expected<DaemonOptions> o = Parse({policy});
    REQUIRE_FALSE(o.ok());
    CHECK(o.status().message().find("need --remote") != std::string::npos);
    CHECK(Parse({policy, "--remote", "redis://127.0.0.1:6379"}).ok());
  }
  CHECK_FALSE(Parse({"--remote", "redis://h", "--remote-timeout", "0ms"}).ok());
}

TEST_CASE("the remote password comes from a private file or the environment", "[daemon][remote]") {
  TempDir dir;
  const std::string path = (dir.root / "password").string();
  std::ofstream(path) << "s3cret\nignored\n";
  ::chmod(path.c_str(), 0600);
  Expected<std::string> from_file = LoadRemotePassword(path);
  REQUIRE(from_file.ok());
  CHECK(*from_file == "s3cret");

  ::chmod(path.c_str(), 0644);
  Expected<std::string> world_readable = LoadRemotePassword(path);
  REQUIRE_FALSE(world_readable.ok());
  CHECK(world_readable.status().message().find("s3cret") == std::string::npos);
  CHECK_FALSE(LoadRemotePassword((dir.root / "missing").string()).ok());

  ::setenv(kRemotePasswordEnv, "from-env", 1);
  CHECK(*LoadRemotePassword("") == "from-env");
  ::unsetenv(kRemotePasswordEnv);
  CHECK(LoadRemotePassword("")->empty());
}

TEST_CASE("signing flags: a signing key needs a remote, requiring signatures needs trusted keys",
          "[daemon][remote][signing]") {
  Expected<DaemonOptions> o = Parse({"--remote", "redis://h:1", "--remote-signing-key", "/k.pem",
                                     "--remote-trusted-keys", "/trusted", "--remote-require-signatures=false"});
  REQUIRE(o.ok());
  CHECK(o->remote_signing_key == "/k.pem");
  CHECK(o->remote_trusted_keys == "/trusted");
  CHECK_FALSE(o->remote_require_signatures);
  CHECK(Parse({})->remote_require_signatures);
  // Trusted keys alone check imported bundles.
  CHECK(Parse({"--remote-trusted-keys", "/trusted"}).ok());

  Expected<DaemonOptions> lonely_key = Parse({"--remote-signing-key", "/k.pem"});
  REQUIRE_FALSE(lonely_key.ok());
  CHECK_THAT(lonely_key.status().message(), Catch::Contains("--remote-signing-key needs --remote"));
  Expected<DaemonOptions> nothing_to_require = Parse({"--remote-require-signatures=false"});
  REQUIRE_FALSE(nothing_to_require.ok());
  CHECK_THAT(nothing_to_require.status().message(), Catch::Contains("needs --remote-trusted-keys"));
}

TEST_CASE("signing keys load at start, and a bad one is an error naming its flag", "[daemon][remote][signing]") {
  TempDir dir;
  Expected<signing::SigningKey> key = signing::SigningKey::Generate();
  REQUIRE(key.ok());
  const std::string private_path = dir.root / "writer.pem";
  REQUIRE(signing::WriteNewKeyPair(*key, private_path).ok());
  DaemonOptions o;
  o.remote_url = "redis://127.0.0.1:1";
  o.remote_signing_key = private_path;
  o.remote_trusted_keys = private_path + ".pub";
  Expected<SharedEntrySigning> loaded = LoadSigning(o);
  REQUIRE(loaded.ok());
  REQUIRE(loaded->signer != nullptr);
  CHECK(loaded->signer->id() == key->id());
  REQUIRE(loaded->policy.checks());
  CHECK(loaded->policy.require);
  CHECK(loaded->policy.trusted->ids() == std::vector<std::string>{key->id()});

  DaemonOptions swapped = o;
  swapped.remote_signing_key = o.remote_trusted_keys;
  CHECK_THAT(LoadSigning(swapped).status().message(),
             Catch::Contains("--remote-signing-key") && Catch::Contains("holds a public key"));
  swapped = o;
  swapped.remote_trusted_keys = o.remote_signing_key;
  CHECK_THAT(LoadSigning(swapped).status().message(),
             Catch::Contains("--remote-trusted-keys") && Catch::Contains("a private key"));
  REQUIRE(::chmod(private_path.c_str(), 0644) == 0);
  const Status open = LoadSigning(o).status();
  CHECK(open.code() == Code::kFailedPrecondition);
  CHECK_THAT(open.message(), Catch::Contains("--remote-signing-key") && Catch::Contains("chmod 600"));
  CHECK(LoadSigning(DaemonOptions{}).ok());
  CHECK_FALSE(LoadSigning(DaemonOptions{})->policy.checks());
}

TEST_CASE("a compile lease must outlast three remote timeouts, or be 0", "[daemon][remote][fleet]") {
  CHECK(Parse({"--remote", "redis://h:1"})->remote_lease.count() == 10000);
  CHECK(Parse({"--remote", "redis://h:1", "--remote-lease", "0"})->remote_lease.count() == 0);
  CHECK(Parse({"--remote", "redis://h:1", "--remote-lease", "600ms"}).ok());  // 3 x the 200ms default
  Expected<DaemonOptions> short_lease = Parse({"--remote", "redis://h:1", "--remote-lease", "500ms"});
  REQUIRE_FALSE(short_lease.ok());
  CHECK_THAT(short_lease.status().message(), Catch::Contains("--remote-lease 500ms is too short") &&
                                                  Catch::Contains("at least 600ms"));
  Expected<DaemonOptions> slow_remote =
      Parse({"--remote", "redis://h:1", "--remote-timeout", "2s", "--remote-lease", "5s"});
  REQUIRE_FALSE(slow_remote.ok());
  CHECK_THAT(slow_remote.status().message(), Catch::Contains("at least 6000ms"));
  CHECK_FALSE(Parse({"--remote-lease", "20s"}).ok());  // needs --remote
}
