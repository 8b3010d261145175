// --log-format json through a real daemon: every line of its stderr is one
// JSON object with the promised keys, whatever bytes the message holds.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <vector>

#include "tests/support/daemon_process.h"
#include "tests/support/subprocess.h"

using namespace qdcache;
using namespace qdcache::testing;

namespace {

// Each line of `log` parsed; fails the test on a line that is not a JSON
// object with ts, level, logger, msg, pid and thread.
std::vector<nlohmann::json> JsonLines(const std::string& log) {
  static const std::regex kRfc3339Ms(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)");
  std::vector<nlohmann::json> lines;
  std::istringstream in(log);
  std::string line;
  while (std::getline(in, line)) {
    INFO(line);
    nlohmann::json j;
    REQUIRE_NOTHROW(j = nlohmann::json::parse(line));  // also refuses invalid UTF-8
    REQUIRE(j.is_object());
    for (const char* key : {"ts", "level", "logger", "msg"})
      REQUIRE((j.contains(key) && j[key].is_string()));
    for (const char* key : {"pid", "thread"})
      REQUIRE((j.contains(key) && j[key].is_number_integer()));
    CHECK(std::regex_match(j["ts"].get<std::string>(), kRfc3339Ms));
    lines.push_back(std::move(j));
  }
  return lines;
}

bool AnyMessage(const std::vector<nlohmann::json>& lines, const std::string& part) {
  for (const auto& j : lines) {
    if (j["msg"].get<std::string>().find(part) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

TEST_CASE(
    "the json log format writes one JSON object per line, quotes, newlines and bad UTF-8 included",
    "[integration][log]") {
  TempDir dir;
  // The daemon logs its socket path: make it hold a quote, a newline and a
  // byte that is not UTF-8.
  const std::string odd = dir / "log\"quote\nline\xff";
  REQUIRE(::mkdir(odd.c_str(), 0700) == 0);
  DaemonProcess daemon(odd, {"--log-format", "json"});
  daemon.Start();
  const pid_t pid = daemon.pid();
  {
    // A connection, logged at debug level; through a plain-named link, as a
    // gRPC target need not carry those bytes.
    REQUIRE(::symlink(odd.c_str(), (dir / "plain").c_str()) == 0);
    client::ClientOptions o;
    o.socket_path = dir / "plain/qdcached.sock";
    auto c = client::Client::Connect(o);
    REQUIRE(c.ok());
    REQUIRE((*c)->Stats().ok());
  }
  REQUIRE(daemon.Stop() == 0);

  std::vector<nlohmann::json> lines = JsonLines(daemon.log());
  REQUIRE(lines.size() >= 3);
  std::set<std::string> levels;
  for (const auto& j : lines) {
    CHECK(j["pid"] == pid);
    CHECK(j["logger"] == "qdcached");
    levels.insert(j["level"]);
  }
  CHECK(levels.contains("info"));
  CHECK(levels.contains("debug"));  // DaemonProcess runs it at --log-level debug
  // The path as it was, with the one byte that is not UTF-8 spelled \xFF.
  CHECK(AnyMessage(lines, "serving unix:" + dir.path() + "/log\"quote\nline\\xFF/qdcached.sock"));
  CHECK(AnyMessage(lines, "received SIGTERM"));
}

TEST_CASE("QDCACHED_LOG_FORMAT selects JSON and --log-level still filters", "[integration][log]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.set_env({"QDCACHED_LOG_FORMAT=json"});
  daemon.set_log_level("info");
  daemon.Start();
  (void)StatsOf(daemon);  // its connection is logged at debug level only
  REQUIRE(daemon.Stop() == 0);
  std::vector<nlohmann::json> lines = JsonLines(daemon.log());
  CHECK(AnyMessage(lines, "serving unix:"));
  for (const auto& j : lines) {
    INFO(j.dump());
    CHECK(j["level"] != "debug");
  }
}

TEST_CASE("the human log format stays plain text", "[integration][log]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  REQUIRE(daemon.Stop() == 0);
  const std::string log = daemon.log();
  CHECK_THAT(log, Catch::Contains("serving unix:"));
  CHECK(log.find("{\"ts\":") == std::string::npos);
}
