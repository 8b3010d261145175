// Daily use of the `qdcache` CLI as a new user meets it, and the agreement
// between the clients (the CLI, a C program over libqdcache.so, Python's
// qdcache) on where they connect and how a fast key written as text becomes
// bytes. Every case runs the real programs against a real daemon.
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/cli_json.h"
#include "tests/support/daemon_process.h"
#include "tests/support/subprocess.h"

using namespace qdcache;
using namespace qdcache::testing;

namespace {

const std::string kCpu = "cpu:x86-64";

std::string SaxpyFile() { return TestData("cpu/saxpy.ll"); }

// The CLI with `args` as given (no --socket added) and `env` applied.
RunResult CliEnv(std::vector<std::string> args, const EnvChanges& env = {}) {
  args.insert(args.begin(), CliBinary());
  return Run(args, env);
}

std::string Line(const std::string& out) { return out.substr(0, out.find('\n')); }

// The environment the clients other than the CLI need: the sanitizer runtime
// preloaded into Python under ASan (CMake's QDCACHE_SANITIZER_HOST_ENV,
// '|'-separated).
// No client started here spawns a daemon, whatever the caller's environment.
EnvChanges HostEnv(EnvChanges env) {
  env.push_back("QDCACHE_AUTOSPAWN=0");
  std::istringstream parts(QDCACHE_HOST_ENV);
  for (std::string part; std::getline(parts, part, '|');) {
    if (!part.empty()) env.push_back(part);
  }
  return env;
}

// Python's qdcache package of the source tree over this build's library:
// runs `code` (which prints its answer) with `env`.
RunResult Python(const std::string& code, EnvChanges env = {}) {
  env.push_back(std::string("PYTHONPATH=") + QDCACHE_PYTHON_DIR);
  env.push_back(std::string("QDCACHE_LIBRARY=") + QDCACHE_C_LIBRARY);
  env.push_back("PYTHONDONTWRITEBYTECODE=1");
  return Run({QDCACHE_PYTHON, "-c", "import qdcache\n" + code}, HostEnv(env));
}

RunResult CProbe(std::vector<std::string> args, const EnvChanges& env = {}) {
  args.insert(args.begin(), QDCACHE_C_PROBE);
  return Run(args, HostEnv(env));
}

bool HostTests() {
#ifdef QDCACHE_HOST_TESTS
  return true;
#else
  WARN("Python and the C probe are not run in this build (ThreadSanitizer cannot be preloaded)");
  return false;
#endif
}

// A python string literal of `text` (no quotes or backslashes in what we pass).
std::string Py(const std::string& text) { return "'" + text + "'"; }

}  // namespace

TEST_CASE("global options work after the sub-command, anywhere on the line", "[integration][cli][cli-daily]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  // Before, between and after the sub-command's own options and arguments.
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"compile", SaxpyFile(), "--target", kCpu, "--socket", daemon.socket_path(), "--json"},
        std::vector<std::string>{"compile", "--socket", daemon.socket_path(), SaxpyFile(), "--target", kCpu, "--json"},
        std::vector<std::string>{"--socket", daemon.socket_path(), "compile", SaxpyFile(), "--target", kCpu, "--json"}}) {
    RunResult r = CliEnv(args, {"QDCACHE_AUTOSPAWN=0", "QDCACHE_SOCKET"});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(nlohmann::json::parse(r.out)["artifact_key"].get<std::string>().size() == 64);
  }
  RunResult ping = CliEnv({"ping", "--timeout", "30", "--socket", daemon.socket_path(), "--json"});
  CHECK(ping.exit_code == 0);
  CHECK(nlohmann::json::parse(ping.out)["serving"] == true);
}

TEST_CASE("an unknown command or option is named, with the nearest known one", "[integration][cli][cli-daily]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  RunResult typo = Cli(daemon, {"compil", SaxpyFile()});
  CHECK(typo.exit_code == 2);
  CHECK_THAT(typo.err, Catch::Contains("unknown command 'compil'; did you mean 'compile'?"));
  RunResult none = CliEnv({});
  CHECK(none.exit_code == 2);
  CHECK_THAT(none.err, Catch::Contains("a command is required (commands: compile, explain"));
  RunResult status = Cli(daemon, {"status"});
  CHECK(status.exit_code == 2);
  CHECK_THAT(status.err, Catch::Contains("unknown command 'status'; did you mean 'stats'?"));
  RunResult option = Cli(daemon, {"compile", SaxpyFile(), "--target", kCpu, "--max-register", "32"});
  CHECK(option.exit_code == 2);
  CHECK_THAT(option.err, Catch::Contains("unknown option --max-register for `qdcache compile`; did you mean "
                                         "--max-registers?"));
  // With --json the same message, as the one JSON document.
  RunResult json = Cli(daemon, {"compile", SaxpyFile(), "--target", kCpu, "--max-register", "32", "--json"});
  CHECK(json.exit_code == 2);
  nlohmann::json error = nlohmann::json::parse(json.out)["error"];
  CHECK(error["code"] == "INVALID_ARGUMENT");
  CHECK_THAT(error["message"].get<std::string>(), Catch::Contains("did you mean --max-registers?"));
  // A long list is cut short and says where the rest is.
  RunResult feature = Cli(daemon, {"compile", SaxpyFile(), "--target", "cpu:x86-64+avx3"});
  CHECK(feature.exit_code == 1);
  CHECK_THAT(feature.err, Catch::Contains("unknown x86 CPU feature 'avx3'") &&
                              Catch::Contains("more; `qdcache targets` lists them"));
  CHECK(feature.err.size() < 600);
  nlohmann::json targets = Json(Cli(daemon, {"targets", "--json"}));
  bool listed = false;
  for (const nlohmann::json& family : targets["families"]) {
    if (family["family"] != "cpu") continue;
    for (const nlohmann::json& f : family["features"]) listed |= f == "avx512f";
    CHECK(family["features"].size() > 100);
  }
  CHECK(listed);
}

TEST_CASE("both programs print the one project version with --version", "[integration][cli][cli-daily]") {
  RunResult cli = CliEnv({"--version"});
  RunResult daemon_version = Run({DaemonBinary(), "--version"});
  REQUIRE(cli.exit_code == 0);
  REQUIRE(daemon_version.exit_code == 0);
  REQUIRE(Line(cli.out).rfind("qdcache ", 0) == 0);
  REQUIRE(Line(daemon_version.out).rfind("qdcached ", 0) == 0);
  CHECK(Line(cli.out).substr(std::string("qdcache ").size()) ==
        Line(daemon_version.out).substr(std::string("qdcached ").size()));
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  CHECK(Json(Cli(daemon, {"stats", "--json"}))["version"] ==
        Line(daemon_version.out).substr(std::string("qdcached ").size()));
}

TEST_CASE("the CLI takes -O0..-O3 as --opt, and the daemon's --help shows defaults and variables", "[integration][cli][cli-daily]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  auto key = [&](std::vector<std::string> flags) {
    std::vector<std::string> args = {"explain", SaxpyFile(), "--target", kCpu, "--json"};
    args.insert(args.end(), flags.begin(), flags.end());
    return Json(Cli(daemon, args))["explanations"][0]["artifact_key"].get<std::string>();
  };
  CHECK(key({"-O1"}) == key({"--opt", "1"}));
  CHECK(key({"-O3"}) == key({}));
  CHECK(key({"-O1"}) != key({}));
  RunResult help = Run({DaemonBinary(), "--help"});
  CHECK(help.exit_code == 0);
  CHECK_THAT(help.out, Catch::Contains("--max-size SIZE") && Catch::Contains("default: 10G; env QDCACHED_MAX_SIZE"));
}

TEST_CASE("a file named - is standard input or standard output", "[integration][cli][cli-daily]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  const std::string ir = ReadFileOrDie(SaxpyFile());
  RunResult piped = RunWithInput({CliBinary(), "--socket", daemon.socket_path(), "compile", "-", "--target", kCpu,
                                  "-o", "-"},
                                 ir);
  INFO(piped.err);
  REQUIRE(piped.exit_code == 0);
  CHECK(piped.out.rfind("\x7f" "ELF", 0) == 0);      // the artifact alone on stdout
  CHECK_THAT(piped.err, Catch::Contains("compiled"));  // the summary on stderr
  // Standard input is read once: a second "-" is refused, not sent empty.
  RunResult twice = RunWithInput({CliBinary(), "--socket", daemon.socket_path(), "explain", "-", "-", "--target",
                                  kCpu},
                                 ir);
  CHECK(twice.exit_code == 2);
  CHECK_THAT(twice.err, Catch::Contains("standard input (-) is already read"));
  nlohmann::json from_file = Json(Cli(daemon, {"compile", SaxpyFile(), "--target", kCpu, "-o", dir / "a.so", "--json"}));
  CHECK(from_file["status"] == "hit");
  CHECK(ReadFileOrDie(dir / "a.so") == piped.out);
  RunResult inspected = Cli(daemon, {"inspect", from_file["artifact_key"].get<std::string>(), "-o", "-"});
  CHECK(inspected.out == piped.out);
  // A bundle through a pipe: export to stdout, import from stdin.
  RunResult exported = Cli(daemon, {"export", "--out", "-"});
  REQUIRE(exported.exit_code == 0);
  TempDir other_dir;
  DaemonProcess other(other_dir.path());
  other.Start();
  RunResult imported =
      RunWithInput({CliBinary(), "--socket", other.socket_path(), "import", "-", "--json"}, exported.out);
  INFO(imported.err);
  REQUIRE(imported.exit_code == 0);
  CHECK(nlohmann::json::parse(imported.out)["artifacts"] == 1);
  // Both on stdout cannot work: refused before anything is sent.
  RunResult both = Cli(daemon, {"compile", SaxpyFile(), "--target", kCpu, "-o", "-", "--json"});
  CHECK(both.exit_code == 2);
  CHECK_THAT(both.out, Catch::Contains("both write to stdout"));
  RunResult two = Cli(daemon, {"compile", SaxpyFile(), "--target", kCpu, "-o", "-", "--ptx-out", "-"});
  CHECK(two.exit_code == 2);
  CHECK_THAT(two.err, Catch::Contains("both write to stdout"));
  // Several artifacts cannot share stdout, and no directory named - is made.
  RunResult several = Cli(daemon, {"lookup", "--fast-key", "01", "--fast-key", "02", "--target", kCpu, "-o", "-"});
  CHECK(several.exit_code == 2);
  CHECK_THAT(several.err, Catch::Contains("-o - takes the artifact of one fast key"));
  CHECK_FALSE(std::filesystem::exists("-"));
}

TEST_CASE("artifact keys are taken as unique prefixes, like git's", "[integration][cli][cli-daily]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  std::vector<std::string> keys;
  for (const std::string target : {"cpu:x86-64", "cpu:skylake", "cpu:znver3", "cpu:icelake-server", "cpu:haswell"}) {
    keys.push_back(Json(Cli(daemon, {"compile", SaxpyFile(), "--target", target, "--json"}))["artifact_key"]);
  }
  const std::string& key = keys.front();
  // The 16 digits the CLI prints, and shorter.
  for (std::size_t digits : {16, 8, 5}) {
    nlohmann::json shown = Json(Cli(daemon, {"inspect", key.substr(0, digits), "--json"}));
    CHECK(shown["artifact_key"] == key);
  }
  RunResult unknown = Cli(daemon, {"inspect", "0000000000000000", "--json"});
  CHECK(unknown.exit_code == 1);
  CHECK(nlohmann::json::parse(unknown.out)["error"]["code"] == "NOT_FOUND");
  RunResult too_short = Cli(daemon, {"inspect", key.substr(0, 3)});
  CHECK(too_short.exit_code == 2);
  CHECK_THAT(too_short.err, Catch::Contains("at least 4 hex digits"));
  // An ambiguous prefix is refused listing the candidates: client/unique_key_test.cc
  // (two stored keys sharing four digits cannot be made on purpose here).
}

TEST_CASE("the same fast key text means the same bytes in the CLI, the manifest, C and Python",
          "[integration][cli][cli-daily]") {
  if (!HostTests()) return;
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  const std::string hex = "c0ffee01";
  const std::string raw = "\xc0\xff\xee\x01";
  const std::string socket = daemon.socket_path();
  // Each producer records an alias in its own namespace.
  nlohmann::json compiled = Json(Cli(daemon, {"compile", SaxpyFile(), "--target", kCpu, "--fast-key", hex,
                                              "--namespace", "cli", "--json"}));
  const std::string key = compiled["artifact_key"];
  WriteFileOrDie(dir / "manifest.jsonl", "{\"ir\": \"" + SaxpyFile() + "\", \"target\": \"" + kCpu +
                                             "\", \"fast_key\": \"" + hex + "\", \"namespace\": \"manifest\"}\n");
  RunResult warmed = Cli(daemon, {"warm", dir / "manifest.jsonl"});
  INFO(warmed.err);
  REQUIRE(warmed.exit_code == 0);
  RunResult c = CProbe({"--socket", socket, "compile", SaxpyFile(), kCpu, "c", hex});
  INFO(c.err);
  REQUIRE(c.exit_code == 0);
  CHECK(Line(c.out) == key);
  RunResult py = Python("c = qdcache.Client(socket=" + Py(socket) + ")\nprint(c.compile(open(" + Py(SaxpyFile()) +
                        ", 'rb').read(), target=" + Py(kCpu) + ", fast_key=" + Py(hex) +
                        ", namespace='python').key)");
  INFO(py.err);
  REQUIRE(py.exit_code == 0);
  CHECK(Line(py.out) == key);
  // Each consumer finds every producer's alias.
  for (const std::string ns : {"cli", "manifest", "c", "python"}) {
    INFO("namespace " << ns);
    nlohmann::json by_cli = Json(Cli(daemon, {"lookup", "--fast-key", hex, "--namespace", ns, "--target", kCpu,
                                              "--json"}));
    CHECK(by_cli["status"] == "alias_hit");
    CHECK(by_cli["artifact_key"] == key);
    RunResult by_c = CProbe({"--socket", socket, "lookup", kCpu, ns, raw});
    CHECK(by_c.exit_code == 0);
    CHECK(Line(by_c.out) == key);
    RunResult by_python = Python("c = qdcache.Client(socket=" + Py(socket) + ")\n[a] = c.lookup([" + Py(hex) +
                                 "], namespace=" + Py(ns) + ", target=" + Py(kCpu) + ")\nprint(a.key)");
    CHECK(by_python.exit_code == 0);
    CHECK(Line(by_python.out) == key);
  }
  // Text meant as its own bytes is spelt so, and is another key.
  RunResult text = Cli(daemon, {"lookup", "--fast-key-text", hex, "--namespace", "cli", "--target", kCpu});
  CHECK(text.exit_code == 3);
  RunResult not_hex = Python("qdcache.Client(socket=" + Py(socket) + ").lookup(['not hex'], namespace='cli', "
                             "target=" + Py(kCpu) + ")");
  CHECK(not_hex.exit_code != 0);
  CHECK_THAT(not_hex.err, Catch::Contains("ValueError") && Catch::Contains("hex"));
}

TEST_CASE("where to connect: flag > QDCACHE_SOCKET > the per-user default, the same in the CLI, C and Python",
          "[integration][cli][cli-daily]") {
  if (!HostTests()) return;
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  const std::string version = Json(Cli(daemon, {"stats", "--json"}))["version"];
  const std::string nobody = dir / "nobody.sock";
  TempDir runtime;  // a per-user default with no daemon in it
  const std::string xdg = "XDG_RUNTIME_DIR=" + runtime.path();
  struct Client {
    std::string name;
    std::function<RunResult(const std::optional<std::string>& socket_flag, const EnvChanges& env)> version;
  };
  const std::vector<Client> clients = {
      {"cli",
       [](const std::optional<std::string>& flag, const EnvChanges& env) {
         std::vector<std::string> args = {"ping", "--no-spawn"};
         if (flag) args.insert(args.end(), {"--socket", *flag});
         return CliEnv(args, env);
       }},
      {"c",
       [](const std::optional<std::string>& flag, const EnvChanges& env) {
         std::vector<std::string> args;
         if (flag) args = {"--socket", *flag};
         args.push_back("version");
         return CProbe(args, env);
       }},
      {"python", [](const std::optional<std::string>& flag, const EnvChanges& env) {
         return Python("print(qdcache.Client(" + (flag ? "socket=" + Py(*flag) : std::string()) + ").ping())", env);
       }}};
  for (const Client& client : clients) {
    INFO("client " << client.name);
    // The environment alone: the README's tour sets nothing else.
    RunResult from_env = client.version(std::nullopt, {xdg, "QDCACHE_SOCKET=" + daemon.socket_path(), "QDCACHE_ADDR"});
    INFO(from_env.err);
    CHECK(from_env.exit_code == 0);
    if (client.name != "cli") CHECK(Line(from_env.out) == version);
    // The flag (argument, option) over the environment.
    RunResult flag = client.version(daemon.socket_path(), {xdg, "QDCACHE_SOCKET=" + nobody, "QDCACHE_ADDR"});
    CHECK(flag.exit_code == 0);
    // The environment over the per-user default; nobody there: UNAVAILABLE naming it.
    RunResult missing = client.version(std::nullopt, {xdg, "QDCACHE_SOCKET=" + nobody, "QDCACHE_ADDR"});
    CHECK(missing.exit_code != 0);
    CHECK_THAT(missing.err, Catch::Contains("UNAVAILABLE") || Catch::Contains("Unavailable"));
    CHECK_THAT(missing.err, Catch::Contains("no qdcached is running at " + nobody));
    // Neither: the per-user default, empty here.
    RunResult fallback = client.version(std::nullopt, {xdg, "QDCACHE_SOCKET", "QDCACHE_ADDR"});
    CHECK(fallback.exit_code != 0);
    CHECK_THAT(fallback.err, Catch::Contains(runtime.path() + "/qdcached.sock"));
    // Two endpoints in the environment: refused, not guessed.
    RunResult both = client.version(std::nullopt, {xdg, "QDCACHE_SOCKET=" + daemon.socket_path(),
                                                   "QDCACHE_ADDR=127.0.0.1:1"});
    CHECK(both.exit_code != 0);
    CHECK_THAT(both.err, Catch::Contains("both QDCACHE_ADDR and QDCACHE_SOCKET are set"));
  }
}

TEST_CASE("sizes need a unit, and the cap is checked and logged at start", "[integration][cli][cli-daily]") {
  TempDir dir;
  DaemonProcess tiny(dir.path(), {"--max-size", "10"});
  CHECK_THROWS_WITH(tiny.Start(), Catch::Contains("did you mean 10G?"));
  DaemonProcess below(dir.path(), {"--max-size", "1K"});
  CHECK_THROWS_WITH(below.Start(), Catch::Contains("at least 64K"));
  DaemonProcess daemon(dir.path(), {"--max-size", "2G"});
  daemon.Start();
  CHECK_THAT(daemon.log(), Catch::Contains("cap=2G"));
  RunResult trim = Cli(daemon, {"trim", "--max-size", "10"});
  CHECK(trim.exit_code == 2);
  CHECK_THAT(trim.err, Catch::Contains("did you mean 10G?"));
  CHECK(Cli(daemon, {"trim", "--max-size", "10G"}).exit_code == 0);
}

TEST_CASE("local file problems get their own codes, never UNAVAILABLE", "[integration][cli][cli-daily]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  std::filesystem::create_directory(dir / "out");
  auto code = [&](std::vector<std::string> args) {
    args.push_back("--json");
    RunResult r = Cli(daemon, args);
    INFO(r.out << r.err);
    CHECK(r.exit_code != 0);
    return nlohmann::json::parse(r.out)["error"]["code"].get<std::string>();
  };
  CHECK(code({"compile", SaxpyFile(), "--target", kCpu, "-o", dir / "out"}) == "FAILED_PRECONDITION");
  CHECK(code({"compile", SaxpyFile(), "--target", kCpu, "-o", dir / "nodir/x.so"}) == "NOT_FOUND");
  CHECK(code({"export", "--out", dir / "nodir/x.qdb"}) == "NOT_FOUND");
  CHECK(code({"compile", dir / "missing.ll", "--target", kCpu}) == "NOT_FOUND");
  CHECK(code({"compile", dir / "out", "--target", kCpu}) == "FAILED_PRECONDITION");
  CHECK(code({"import", dir / "missing.qdb"}) == "NOT_FOUND");
  CHECK(std::filesystem::is_empty(dir / "out"));
}

TEST_CASE("ls filters, clear and dry runs, shutdown", "[integration][cli][cli-daily]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  Json(Cli(daemon, {"compile", SaxpyFile(), "--target", kCpu, "--fast-key", "01", "--namespace", "a", "--json"}));
  nlohmann::json sky = Json(Cli(daemon, {"compile", SaxpyFile(), "--target", "cpu:skylake", "--fast-key", "02",
                                         "--namespace", "b", "--json"}));
  nlohmann::json all = Json(Cli(daemon, {"ls", "--json"}));
  REQUIRE(all["entries"].size() == 2);
  for (const nlohmann::json& e : all["entries"]) {
    // The payload's size as compile reports it, and what the store counts.
    CHECK(e["size"].get<std::uint64_t>() <= e["stored_bytes"].get<std::uint64_t>());
  }
  nlohmann::json by_target = Json(Cli(daemon, {"ls", "--target", "cpu:skylake", "--json"}));
  REQUIRE(by_target["entries"].size() == 1);
  CHECK(by_target["entries"][0]["artifact_key"] == sky["artifact_key"]);
  CHECK(by_target["entries"][0]["size"] == sky["size"]);
  nlohmann::json by_ns = Json(Cli(daemon, {"ls", "--namespace", "b", "--json"}));
  REQUIRE(by_ns["entries"].size() == 1);
  CHECK(by_ns["entries"][0]["artifact_key"] == sky["artifact_key"]);
  nlohmann::json aliases = Json(Cli(daemon, {"ls", "--aliases", "--json"}));
  REQUIRE(aliases["aliases"].size() == 2);
  CHECK(Json(Cli(daemon, {"ls", "--aliases", "--namespace", "a", "--json"}))["aliases"][0]["fast_key"] == "01");
  // CPU kernels have no register counts: left out, not -1.
  nlohmann::json shown = Json(Cli(daemon, {"inspect", sky["artifact_key"], "--json"}));
  CHECK_FALSE(shown["entries"][0].contains("registers"));
  CHECK_THAT(Cli(daemon, {"inspect", sky["artifact_key"]}).out, !Catch::Contains("=-1") && !Catch::Contains("registers"));
  // Dry runs say what would go and leave it.
  nlohmann::json would = Json(Cli(daemon, {"clear", "--dry-run", "--json"}));
  CHECK(would["dry_run"] == true);
  CHECK(would["evicted_entries"] == 2);
  CHECK(Json(Cli(daemon, {"evict", "--older-than", "0s", "-n", "--json"}))["evicted_entries"] == 2);
  CHECK(Json(Cli(daemon, {"trim", "--max-size", "1K", "--dry-run", "--json"}))["evicted_entries"] == 2);
  CHECK(Json(Cli(daemon, {"ls", "--json"}))["entries"].size() == 2);
  // An empty value is refused, never taken for `clear`.
  for (const std::vector<std::string>& empty :
       {std::vector<std::string>{"evict", "--older-than", ""}, std::vector<std::string>{"trim", "--max-size", ""}}) {
    RunResult r = Cli(daemon, empty);
    INFO(empty[0] << ": " << r.err);
    CHECK(r.exit_code == 2);
  }
  CHECK(Json(Cli(daemon, {"ls", "--json"}))["entries"].size() == 2);
  nlohmann::json cleared = Json(Cli(daemon, {"clear", "--json"}));
  CHECK(cleared["dry_run"] == false);
  CHECK(cleared["evicted_entries"] == 2);
  CHECK(Json(Cli(daemon, {"ls", "--json"}))["entries"].empty());
  // Stats: the unambiguous names beside the old ones.
  nlohmann::json stats = Json(Cli(daemon, {"stats", "--json"}));
  CHECK(stats["artifact_hits"] == stats["hits"]);
  CHECK(stats["alias_misses"] == stats["misses"]);
  CHECK(stats["levels"]["artifact"]["misses"] == 2);
  // The owner of a per-user daemon stops it.
  nlohmann::json stopping = Json(Cli(daemon, {"shutdown", "--json"}));
  CHECK(stopping["stopping"] == true);
  CHECK(daemon.WaitForExit(std::chrono::seconds(60)) == std::optional<int>(0));
  CHECK_THAT(daemon.log(), Catch::Contains("shutdown asked by uid:"));
}

TEST_CASE("bash completion comes from the CLI's own definition", "[integration][cli][cli-daily]") {
  const std::string bash = FindOnPath("bash");
  if (bash.empty()) {
    WARN("no bash: completion not run");
    return;
  }
  RunResult script = CliEnv({"completion", "bash"});
  REQUIRE(script.exit_code == 0);
  TempDir dir;
  WriteFileOrDie(dir / "qdcache.bash", script.out);
  // What bash offers after `qdcache com` and after `qdcache compile --max-r`.
  auto complete = [&](const std::string& words) {
    RunResult r = Run({bash, "-c", "source " + (dir / "qdcache.bash") + "; COMP_WORDS=(" + words +
                                       "); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _qdcache; echo \"${COMPREPLY[*]}\""});
    INFO(r.err);
    CHECK(r.exit_code == 0);
    return Line(r.out);
  };
  CHECK(complete("qdcache com") == "compile completion");
  CHECK(complete("qdcache compile --max-r") == "--max-registers");
  CHECK_THAT(complete("qdcache ls --") , Catch::Contains("--aliases") && Catch::Contains("--socket"));
}

TEST_CASE("the daemon's log names each request's client, and hits at trace level", "[integration][cli][cli-daily]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.set_log_level("trace");
  daemon.Start();
  const std::string key = Json(Cli(daemon, {"compile", SaxpyFile(), "--target", kCpu, "--fast-key", "0a", "--namespace",
                                            "n", "--json"}))["artifact_key"];
  Json(Cli(daemon, {"compile", SaxpyFile(), "--target", kCpu, "--json"}));
  Json(Cli(daemon, {"lookup", "--fast-key", "0a", "--namespace", "n", "--target", kCpu, "--json"}));
  const std::string log = daemon.log();
  CHECK_THAT(log, Catch::Contains("Compile: 1 kernel from uid:") && Catch::Contains("(qdcache-cli)"));
  CHECK_THAT(log, Catch::Contains("hit " + key.substr(0, 16) + " " + kCpu + " for uid:"));
  CHECK_THAT(log, Catch::Contains("alias hit " + key.substr(0, 16)));
}
