// The files in deploy/: systemd units that systemd's own tools accept, an
// example config that is exactly what `qdcached --print-config` prints, the
// configuration reference in docs/operations.md (--print-config-reference),
// and man pages naming every option. Checks whose tool is absent skip with
// a warning.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/daemon_process.h"
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

// Every long option ("--max-size") the lines of a program's --help name.
std::set<std::string> LongOptions(const std::string& help) {
  std::set<std::string> found;
  const std::regex option(R"((^|[\s,])(--[a-z][a-z0-9-]*))");
  for (auto it = std::sregex_iterator(help.begin(), help.end(), option); it != std::sregex_iterator(); ++it) {
    found.insert((*it)[2]);
  }
  return found;
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
