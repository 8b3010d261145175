#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "daemon/daemon_options.h"
#include "daemon/remote_setup.h"
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
