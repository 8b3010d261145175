// Flags, QDCACHED_* environment variables and the config file: one table,
// precedence flag > environment > file > default, errors that name their source.
#include <stdlib.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>

#include "daemon/config_file.h"
#include "daemon/config_print.h"
#include "daemon/daemon_options.h"
#include "tests/unit/daemon/options_test_util.h"
#include "daemon/daemon_settings.h"
#include "daemon/setting.h"

using namespace qdcache;
using namespace qdcache::daemon;
using qdcache::daemon::testing::Parse;

namespace {

// A config file in a fresh directory, removed on scope exit.
class ConfigFile {
 public:
  explicit ConfigFile(const std::string& text) {
    std::string tmpl = std::filesystem::temp_directory_path().string() + "/qdcache-config-XXXXXX";
    REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
    dir_ = tmpl;
    path_ = dir_ + "/qdcached.toml";
    std::ofstream(path_) << text;
  }
  ~ConfigFile() { std::filesystem::remove_all(dir_); }
  const std::string& path() const { return path_; }

 private:
  std::string dir_, path_;
};


}  // namespace

TEST_CASE("environment variable names are QDCACHED_ and the setting in upper snake case", "[daemon][config]") {
  CHECK(EnvName("max-size") == "QDCACHED_MAX_SIZE");
  CHECK(EnvName("tls-client-ca") == "QDCACHED_TLS_CLIENT_CA");
}

TEST_CASE("every setting in the table is a flag, an environment variable and a file key", "[daemon][config]") {
  for (const Setting& s : DaemonSettings()) {
    if (!s.configurable) continue;
    INFO(s.name);
    const std::string value = s.show(DaemonOptions{});
    ConfigFile file(s.name + " = " + (s.kind == ValueKind::kBool || s.kind == ValueKind::kInteger
                                          ? value
                                          : TomlString(value)) + "\n");
    CHECK(Parse({"--config", file.path()}).ok());
    CHECK(Parse({}, {{EnvName(s.name), value}}).ok());
    std::vector<std::string> flag = s.kind == ValueKind::kBool ? std::vector<std::string>{"--" + s.name}
                                                                : std::vector<std::string>{"--" + s.name, value};
    // The remote-* settings other than remote itself need a remote.
    if (s.name.starts_with("remote-")) flag.insert(flag.end(), {"--remote", "redis://127.0.0.1:6379"});
    CHECK(Parse(flag).ok());
  }
}

TEST_CASE("remote-* settings without a remote are refused", "[daemon][config]") {
  Expected<DaemonOptions> o = Parse({"--remote-read-only"});
  REQUIRE_FALSE(o.ok());
  CHECK(o.status().message().find("need --remote") != std::string::npos);
  CHECK(Parse({"--remote-read-only", "--remote", "redis://127.0.0.1:6379"}).ok());
  CHECK_FALSE(Parse({"--remote", "redis://h:1/x", "--remote-timeout", "0"}).ok());
  CHECK_FALSE(Parse({}, {{"QDCACHED_REMOTE", "memcached://h:1"}}).ok());
}

TEST_CASE("a flag beats the environment, which beats the file, which beats the default", "[daemon][config]") {
  ConfigFile file("max-batch = 10\nmax-queue = 20\nlog-level = \"warn\"\n");
  Expected<DaemonOptions> o = Parse({"--config", file.path(), "--max-batch", "11"},
                                    {{"QDCACHED_MAX_BATCH", "12"}, {"QDCACHED_MAX_QUEUE", "21"}});
  REQUIRE(o.ok());
  CHECK(o->max_batch == 11);         // flag
  CHECK(o->max_queue == 21);         // environment over file
  CHECK(o->log_level == "warn");     // file over default
  CHECK(o->key_workers == 1);        // default
}

TEST_CASE("sizes and durations in the file may be strings with units or integers", "[daemon][config]") {
  ConfigFile file("max-size = \"2G\"\nworker-memory = 0\ncompile-timeout = \"2m\"\nfailure-memory = 30\n"
                  "sync-writes = true\n");
  Expected<DaemonOptions> o = Parse({"--config", file.path()});
  REQUIRE(o.ok());
  CHECK(o->max_bytes == 2ull << 30);
  CHECK(o->worker_memory_bytes == 0);
  CHECK(o->compile_timeout == std::chrono::seconds(120));
  CHECK(o->failure_memory == std::chrono::seconds(30));
  CHECK(o->sync_writes);
  // A TOML integer size is bytes, as the file's documentation says.
  ConfigFile bytes("max-size = 10737418240\nmemory-cache = 1048576\n");
  Expected<DaemonOptions> from_integers = Parse({"--config", bytes.path()});
  REQUIRE(from_integers.ok());
  CHECK(from_integers->max_bytes == 10ull << 30);
  CHECK(from_integers->memory_cache_bytes == 1ull << 20);
}

TEST_CASE("an unknown key in the file names the file and line, with a hint for snake case", "[daemon][config]") {
  ConfigFile file("workers = 2\nmax_size = \"1G\"\n");
  Expected<DaemonOptions> o = Parse({"--config", file.path()});
  REQUIRE_FALSE(o.ok());
  CHECK(o.status().code() == Code::kInvalidArgument);
  CHECK_THAT(o.status().message(), Catch::Contains(file.path() + ":2") && Catch::Contains("unknown key \"max_size\"") &&
                                       Catch::Contains("did you mean \"max-size\""));
}

TEST_CASE("a value of the wrong type names the file, line and key", "[daemon][config]") {
  ConfigFile file("\nworkers = \"four\"\n");
  Expected<DaemonOptions> o = Parse({"--config", file.path()});
  REQUIRE_FALSE(o.ok());
  CHECK_THAT(o.status().message(), Catch::Contains(file.path() + ":2: workers: expected an integer, got a string"));
}

TEST_CASE("a bad value names where it came from", "[daemon][config]") {
  ConfigFile file("log-level = \"loud\"\n");
  Expected<DaemonOptions> from_file = Parse({"--config", file.path()});
  REQUIRE_FALSE(from_file.ok());
  CHECK_THAT(from_file.status().message(), Catch::Contains(file.path() + ":1: log-level:") && Catch::Contains("loud"));
  Expected<DaemonOptions> from_env = Parse({}, {{"QDCACHED_MAX_SIZE", "12Q"}});
  REQUIRE_FALSE(from_env.ok());
  CHECK_THAT(from_env.status().message(), Catch::StartsWith("QDCACHED_MAX_SIZE: "));
  Expected<DaemonOptions> from_flag = Parse({"--worker-memory", "1M"});
  REQUIRE_FALSE(from_flag.ok());
  CHECK_THAT(from_flag.status().message(), Catch::StartsWith("--worker-memory: ") && Catch::Contains("256M"));
}

TEST_CASE("existing flag ranges still hold", "[daemon][config]") {
  for (std::vector<std::string> bad : {std::vector<std::string>{"--workers", "99999"},
                                       {"--max-message-bytes", "0"},
                                       {"--key-workers", "0"},
                                       {"--max-ir-bytes", "0"},
                                       {"--tls-client-role", "root"},
                                       {"--read-compile", "maybe"},
                                       {"--compile-timeout", "1y"},
                                       {"--no-such-flag"}}) {
    INFO(bad[0]);
    CHECK(Parse(bad).status().code() == Code::kInvalidArgument);
  }
  CHECK(Parse({"--max-message-bytes", "64M"})->max_message_bytes == 64ull << 20);
  CHECK(Parse({"--max-message-bytes", "1048576B"})->max_message_bytes == 1ull << 20);
  CHECK_FALSE(Parse({"--max-message-bytes", "1048576"}).ok());  // no unit: refused, not guessed
  CHECK_FALSE(Parse({"--max-size", "32K"}).ok());                // below one large artifact
  CHECK(Parse({"--max-size", "64K"})->max_bytes == 64ull << 10);
  CHECK(Parse({"--max-size", "0"})->max_bytes == 0);
}

TEST_CASE("a config file that was named must exist, the default one need not", "[daemon][config]") {
  CHECK_THAT(Parse({"--config", "/nonexistent/x.toml"}).status().message(),
             Catch::Contains("--config") && Catch::Contains("/nonexistent/x.toml"));
  CHECK_THAT(Parse({}, {{"QDCACHED_CONFIG", "/nonexistent/y.toml"}}).status().message(),
             Catch::Contains("QDCACHED_CONFIG") && Catch::Contains("does not exist"));
  CHECK(Parse({}).ok());  // the default path does not exist
  // A directory would read as an empty file: refused, not run on defaults.
  Expected<DaemonOptions> dir = Parse({"--config", "/tmp"});
  REQUIRE_FALSE(dir.ok());
  CHECK_THAT(dir.status().message(), Catch::Contains("is a directory"));
}

TEST_CASE("durations past 100 years are refused (a deadline from them would overflow)", "[daemon][config]") {
  CHECK_THAT(Parse({"--idle-exit", "20000w"}).status().message(),
             Catch::Contains("--idle-exit") && Catch::Contains("100 years"));
  CHECK_FALSE(Parse({"--remote", "redis://h:1", "--remote-timeout", "9223372036854775807ms"}).ok());
  CHECK(Parse({"--idle-exit", "5200w"}).ok());
}

TEST_CASE("booleans read in any case, from flags' environment variables too", "[daemon][config]") {
  CHECK(Parse({}, {{"QDCACHED_SYNC_WRITES", "TRUE"}})->sync_writes);
  CHECK_FALSE(Parse({}, {{"QDCACHED_SYNC_WRITES", "Off"}})->sync_writes);
  CHECK_FALSE(Parse({}, {{"QDCACHED_SYNC_WRITES", "maybe"}}).ok());
}

TEST_CASE("ready-fd is a flag only, never a file key or environment variable", "[daemon][config]") {
  ConfigFile file("ready-fd = 3\n");
  CHECK_THAT(Parse({"--config", file.path()}).status().message(), Catch::Contains("command-line flag only"));
  CHECK(Parse({}, {{"QDCACHED_READY_FD", "3"}})->ready_fd == -1);
  CHECK(Parse({"--ready-fd", "3"})->ready_fd == 3);
}

TEST_CASE("print-config prints TOML that reads back as the same configuration", "[daemon][config]") {
  ConfigFile file("max-size = \"3G\"\nsocket = \"/a \\\"quoted\\\" path\"\n");
  Expected<DaemonOptions> printed = Parse({"--config", file.path(), "--workers", "3", "--sync-writes", "--print-config"},
                                          {{"QDCACHED_LOG_LEVEL", "warn"}});
  REQUIRE(printed.status().code() == Code::kCancelled);
  const std::string toml = printed.status().message();
  CHECK_THAT(toml, Catch::Contains("\nmax-size = \"3G\"\n") && Catch::Contains("\nworkers = 3\n") &&
                       Catch::Contains("\nlog-level = \"warn\"\n") && Catch::Contains("\nsync-writes = true\n"));
  ConfigFile again(toml);
  Expected<DaemonOptions> o = Parse({"--config", again.path()});
  REQUIRE(o.ok());
  CHECK(o->max_bytes == 3ull << 30);
  CHECK(o->socket_path == "/a \"quoted\" path");
  CHECK(o->workers == 3);
  CHECK(o->log_level == "warn");
  CHECK(o->sync_writes);
  CHECK(Parse({"--config", again.path(), "--print-config"}).status().message() == toml);
}

TEST_CASE("a secret setting is never printed, only whether it is set", "[daemon][config]") {
  Setting secret = StringSetting("password", "A password", &DaemonOptions::token_file);
  secret.secret = true;
  DaemonOptions o;
  o.token_file = "hunter2";
  const std::string toml = RenderConfig({secret}, o);
  CHECK_THAT(toml, !Catch::Contains("hunter2") && Catch::Contains("# password = (set, not shown"));
}
