// The files in deploy/: systemd units that systemd's own tools accept, an
// example config that is exactly what `qdcached --print-config` prints, the
// configuration reference in docs/operations.md (--print-config-reference),
// man pages naming every option, and a Grafana dashboard and alert rules
// naming only metrics a real daemon exports (promtool checks the rules).
// Checks whose tool is absent skip with a warning.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/daemon_process.h"
#include "tests/support/kernels.h"
#include "tests/support/metrics_scrape.h"
#include "tests/support/redis_server.h"
#include "tests/support/redis_skip.h"
#include "tests/support/subprocess.h"

using namespace qdcache::testing;

namespace {

const std::string kDeploy = QDCACHE_DEPLOY_DIR;

// Copies of the shipped units in `dir`, with ExecStart= running the built
// daemon instead of /usr/bin/qdcached (verify checks that it exists).
std::string InstallUnits(const TempDir& dir) {
  std::string service = ReadFileOrDie(kDeploy + "/systemd/qdcached.service");
  const std::string installed = "/usr/bin/qdcached ";
  const std::size_t at = service.find("ExecStart=" + installed);
  REQUIRE(at != std::string::npos);
  service.replace(at + 10, installed.size() - 1, DaemonBinary());
  WriteFileOrDie(dir / "qdcached.service", service);
  WriteFileOrDie(dir / "qdcached.socket", ReadFileOrDie(kDeploy + "/systemd/qdcached.socket"));
  return dir / "qdcached.service";
}

// Environment changes removing every QDCACHED_* variable of this process.
EnvChanges WithoutDaemonVariables() {
  EnvChanges unset;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string var = *e;
    if (var.rfind("QDCACHED_", 0) == 0) unset.push_back(var.substr(0, var.find('=')));
  }
  return unset;
}

}  // namespace

TEST_CASE("systemd-analyze verify accepts the shipped units without a word", "[deploy][systemd]") {
  const std::string analyze = FindOnPath("systemd-analyze");
  if (analyze.empty()) {
    WARN("systemd-analyze not found: skipping");
    return;
  }
  TempDir dir;
  const std::string service = InstallUnits(dir);
  RunResult r = Run({analyze, "verify", "--man=no", service, dir / "qdcached.socket"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out.empty());
  CHECK(r.err.empty());
}

TEST_CASE("systemd-analyze security rates the service's exposure at 2.0 or less", "[deploy][systemd]") {
  const std::string analyze = FindOnPath("systemd-analyze");
  if (analyze.empty()) {
    WARN("systemd-analyze not found: skipping");
    return;
  }
  TempDir dir;
  const std::string service = InstallUnits(dir);
  // --threshold is in tenths: exit status 0 only for an exposure <= 2.0.
  RunResult r = Run({analyze, "security", "--offline=true", "--threshold=20", "--no-pager", service});
  INFO(r.out << r.err);
  if (r.exit_code != 0 && r.out.find("Overall exposure level") == std::string::npos) {
    WARN("systemd-analyze security cannot run here: skipping");
    return;
  }
  std::smatch level;
  REQUIRE(std::regex_search(r.out, level, std::regex(R"(Overall exposure level for qdcached\.service: (\d+\.\d))")));
  WARN("exposure level " << level[1]);
  CHECK(std::stod(level[1]) <= 2.0);
  CHECK(r.exit_code == 0);
}

TEST_CASE("systemd-sysusers creates the qdcache user and group from the shipped snippet", "[deploy][systemd]") {
  const std::string sysusers = FindOnPath("systemd-sysusers");
  if (sysusers.empty()) {
    WARN("systemd-sysusers not found: skipping");
    return;
  }
  TempDir root;
  REQUIRE(Run({"/bin/mkdir", "-p", root / "etc"}).exit_code == 0);
  RunResult r = Run({sysusers, "--root=" + root.path(), kDeploy + "/systemd/qdcached.sysusers"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(ReadFileOrDie(root / "etc/passwd"), Catch::StartsWith("qdcache:") || Catch::Contains("\nqdcache:"));
  CHECK_THAT(ReadFileOrDie(root / "etc/group"), Catch::StartsWith("qdcache:") || Catch::Contains("\nqdcache:"));
}

TEST_CASE("deploy/qdcached.toml.example is what --print-config prints by default", "[deploy][config]") {
  TempDir dir;
  WriteFileOrDie(dir / "empty.toml", "");
  RunResult r = Run({DaemonBinary(), "--config", dir / "empty.toml", "--print-config"}, WithoutDaemonVariables());
  REQUIRE(r.exit_code == 0);
  INFO("regenerate: qdcached --config EMPTY_FILE --print-config > deploy/qdcached.toml.example");
  CHECK(r.out == ReadFileOrDie(kDeploy + "/qdcached.toml.example"));
}

TEST_CASE("docs/operations.md's configuration reference is what --print-config-reference prints",
          "[deploy][config][docs]") {
  RunResult r = Run({DaemonBinary(), "--print-config-reference"}, WithoutDaemonVariables());
  REQUIRE(r.exit_code == 0);
  REQUIRE_THAT(r.out, Catch::Contains("| `--max-size` | `QDCACHED_MAX_SIZE` | size | `10G` |"));
  const std::string doc = ReadFileOrDie(kDeploy + "/../docs/operations.md");
  const std::string begin = "<!-- BEGIN CONFIG REFERENCE";
  const std::string end = "<!-- END CONFIG REFERENCE -->";
  const std::size_t b = doc.find(begin);
  REQUIRE(b != std::string::npos);
  const std::size_t table = doc.find('\n', b) + 1;
  const std::size_t e = doc.find(end, table);
  REQUIRE(e != std::string::npos);
  INFO("regenerate: docs/update-config-reference.sh [path/to/qdcached]");
  CHECK(doc.substr(table, e - table) == r.out);
}

namespace {

// A man page as a reader sees it: groff's text output, wide and without
// hyphenation, so that no flag is broken across lines. Its warnings (-ww) in
// `warnings`.
std::string RenderMan(const std::string& groff, const std::string& page, std::string* warnings) {
  RunResult r = Run({groff, "-man", "-Tutf8", "-ww", "-rLL=400n", "-rHY=0", "-P", "-cbou", page});
  REQUIRE(r.exit_code == 0);
  *warnings = r.err;
  return r.out;
}

// Every match of `pattern` in `text` (its capture `group`; 0: the whole match).
std::set<std::string> Matches(const std::string& text, const std::regex& pattern, int group = 0) {
  std::set<std::string> found;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), pattern); it != std::sregex_iterator(); ++it) {
    found.insert((*it)[group]);
  }
  return found;
}

// Every long option ("--max-size") the lines of a program's --help name.
std::set<std::string> LongOptions(const std::string& help) {
  return Matches(help, std::regex(R"((^|[\s,])(--[a-z][a-z0-9-]*))"), 2);
}

std::string Help(const std::vector<std::string>& argv) {
  RunResult r = Run(argv, WithoutDaemonVariables());
  REQUIRE(r.exit_code == 0);
  return r.out;
}

}  // namespace

TEST_CASE("the man pages render without a warning and name every option the programs' --help lists",
          "[deploy][man]") {
  const std::string groff = FindOnPath("groff");
  if (groff.empty()) {
    WARN("groff not found (Debian: groff-base): skipping");
    return;
  }
  const std::string man_dir = QDCACHE_MAN_DIR;
  std::string warnings;

  const std::string daemon_page = RenderMan(groff, man_dir + "/qdcached.8", &warnings);
  CHECK(warnings.empty());
  const std::string daemon_help = Help({DaemonBinary(), "--help"});
  REQUIRE(LongOptions(daemon_help).size() > 40);
  for (const std::string& flag : LongOptions(daemon_help)) {
    INFO("qdcached.8 lacks " << flag);
    CHECK_THAT(daemon_page, Catch::Contains(flag));
  }
  CHECK_THAT(daemon_page, Catch::Contains("QDCACHED_MAX_SIZE"));  // the configuration reference

  const std::string cli_page = RenderMan(groff, man_dir + "/qdcache.1", &warnings);
  CHECK(warnings.empty());
  const std::string cli_help = Help({CliBinary(), "--help"});
  const std::size_t commands = cli_help.find("\nSubcommands:\n");
  REQUIRE(commands != std::string::npos);
  std::istringstream lines(cli_help.substr(commands + 14));
  int seen = 0;
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string command;
    if (line.rfind("  ", 0) != 0 || !(words >> command)) continue;
    ++seen;
    INFO("qdcache.1 lacks the command " << command);
    CHECK_THAT(cli_page, Catch::Contains("\n   " + command + "\n"));
    for (const std::string& flag : LongOptions(Help({CliBinary(), command, "--help"}))) {
      INFO("qdcache.1 lacks " << command << " " << flag);
      CHECK_THAT(cli_page, Catch::Contains(flag));
    }
  }
  CHECK(seen >= 18);
}

namespace {

// Every metric family a daemon exports, from the `# TYPE` lines of its scrape,
// with the series names of histograms (_bucket, _sum, _count).
std::set<std::string> ExportedMetrics(const std::string& scrape) {
  std::set<std::string> names;
  std::istringstream lines(scrape);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string hash, type_word, name, type;
    if (!(words >> hash >> type_word >> name >> type) || hash != "#" || type_word != "TYPE") continue;
    names.insert(name);
    if (type == "histogram") {
      for (const char* suffix : {"_bucket", "_sum", "_count"}) names.insert(name + suffix);
    }
  }
  return names;
}

// The qdcache_* metric names a file refers to.
std::set<std::string> ReferencedMetrics(const std::string& text) {
  return Matches(text, std::regex(R"(\bqdcache_[a-z0-9_]+)"));
}

}  // namespace

TEST_CASE("the Grafana dashboard and the alert rules name only metrics the daemon exports",
          "[deploy][metrics]") {
  if (SkipWithoutRedis("the dashboard's check (the shared tier's metrics need a Redis)")) return;
  TempDir dir;
  std::filesystem::create_directory(dir / "redis");
  std::filesystem::create_directory(dir / "daemon");
  RedisServer redis(dir / "redis");
  redis.Start();
  DaemonProcess daemon(dir / "daemon", {"--metrics-listen", "127.0.0.1:0", "--remote",
                                        "redis://127.0.0.1:" + std::to_string(redis.port())});
  daemon.Start();
  // What makes every labelled family appear: a compile, a hit, and a fast-key
  // conflict (the same fast key for two IRs).
  auto client = daemon.Connect();
  REQUIRE(CompileOne(*client, Descriptor("cpu/saxpy.ll", "cpu:x86-64")).status() == qdcache::v1::CACHE_STATUS_COMPILED);
  REQUIRE(CompileOne(*client, Descriptor("cpu/saxpy.ll", "cpu:x86-64")).status() == qdcache::v1::CACHE_STATUS_HIT);
  for (int n : {1, 2}) {
    qdcache::v1::KernelDescriptor d = Descriptor("cpu/saxpy.ll", "cpu:x86-64");
    d.set_ir("define i64 @block() {\n  ret i64 " + std::to_string(n) + "\n}\n");
    d.set_fast_key("tile");
    REQUIRE(CompileOne(*client, d).status() == qdcache::v1::CACHE_STATUS_COMPILED);
  }
  const std::set<std::string> exported = ExportedMetrics(ScrapeMetrics(daemon.MetricsAddress()));
  REQUIRE(exported.count("qdcache_remote_up") == 1);
  REQUIRE(exported.count("qdcache_alias_conflicts_total") == 1);

  const std::string dashboard_text = ReadFileOrDie(kDeploy + "/grafana/qdcached.json");
  const nlohmann::json dashboard = nlohmann::json::parse(dashboard_text);
  int queries = 0;
  for (const auto& panel : dashboard.at("panels")) {
    if (panel.at("type") == "row") continue;
    INFO("panel " << panel.at("title"));
    REQUIRE_FALSE(panel.at("targets").empty());
    for (const auto& target : panel.at("targets")) {
      CHECK_FALSE(target.at("expr").get<std::string>().empty());
      ++queries;
    }
  }
  CHECK(queries >= 40);

  for (const std::string file : {"/grafana/qdcached.json", "/prometheus/qdcached-alerts.yml"}) {
    const std::set<std::string> referenced = ReferencedMetrics(ReadFileOrDie(kDeploy + file));
    CHECK(referenced.size() >= 8);
    for (const std::string& name : referenced) {
      INFO("deploy" << file << " names " << name << ", which the daemon does not export");
      CHECK(exported.count(name) == 1);
    }
  }
}

TEST_CASE("promtool accepts the alert rules, and their unit tests pass", "[deploy][metrics]") {
  const std::string promtool = FindOnPath("promtool");
  if (promtool.empty()) {
    WARN("promtool not found (Debian: prometheus): skipping");
    return;
  }
  RunResult check = Run({promtool, "check", "rules", kDeploy + "/prometheus/qdcached-alerts.yml"});
  INFO(check.out << check.err);
  CHECK(check.exit_code == 0);
  RunResult test = Run({promtool, "test", "rules", kDeploy + "/prometheus/qdcached-alerts.test.yml"});
  INFO(test.out << test.err);
  CHECK(test.exit_code == 0);
}
