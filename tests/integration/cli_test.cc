// The `qdcache` command line against a real daemon.
#include <dlfcn.h>
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/cli_json.h"
#include "tests/support/daemon_process.h"
#include "tests/support/kernels.h"
#include "tests/support/subprocess.h"

using namespace qdcache;
using namespace qdcache::testing;

TEST_CASE("qdcache compile --json reports compiled, then hit, with identical output files", "[integration][cli]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  const std::string target = CudaBuilt() ? "cuda:sm_90" : "cpu:x86-64";
  const std::string ll = TestData(CudaBuilt() ? "cuda/saxpy.ll" : "cpu/saxpy.ll");
  nlohmann::json first = Json(Cli(daemon, {"compile", ll, "--target", target, "-o", dir / "a.bin", "--json"}));
  CHECK(first["status"] == "compiled");
  CHECK(first["artifact_key"].get<std::string>().size() == 64);
  CHECK(first["size"].get<std::size_t>() == ReadFileOrDie(dir / "a.bin").size());
  nlohmann::json second = Json(Cli(daemon, {"compile", ll, "--target", target, "-o", dir / "b.bin", "--json"}));
  CHECK(second["status"] == "hit");
  CHECK(second["artifact_key"] == first["artifact_key"]);
  CHECK(ReadFileOrDie(dir / "a.bin") == ReadFileOrDie(dir / "b.bin"));
  if (CudaBuilt()) {
    CHECK(first["kind"] == "cubin");
    CHECK(CubinSm(ReadFileOrDie(dir / "a.bin")) == 90);
  }
}

TEST_CASE("the .so written by qdcache compile loads with dlopen and computes", "[integration][cli]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  RunResult r = Cli(daemon, {"compile", TestData("cpu/saxpy.ll"), "--target", "cpu:x86-64", "-o", dir / "saxpy.so"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  void* handle = dlopen((dir / "saxpy.so").c_str(), RTLD_NOW | RTLD_LOCAL);
  INFO((handle ? "" : dlerror()));
  REQUIRE(handle != nullptr);
  auto* saxpy = reinterpret_cast<void (*)(std::int64_t, float, const float*, float*)>(dlsym(handle, "saxpy"));
  REQUIRE(saxpy != nullptr);
  float x[3] = {1, 2, 3}, y[3] = {10, 20, 30};
  saxpy(3, 2.0f, x, y);
  CHECK(y[0] == 12);
  CHECK(y[1] == 24);
  CHECK(y[2] == 36);
  dlclose(handle);
}

TEST_CASE("qdcache compile of a malformed file exits non-zero with the daemon's message", "[integration][cli]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  WriteFileOrDie(dir / "bad.ll", "define void @f() {\n  ret i32x\n}\n");
  RunResult r = Cli(daemon, {"compile", dir / "bad.ll", "--target", "cpu:x86-64", "-o", dir / "out.so"});
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::Contains("INVALID_ARGUMENT"));
  CHECK_THAT(r.err, Catch::Contains("2:"));
  CHECK_FALSE(std::filesystem::exists(dir / "out.so"));
}

TEST_CASE("qdcache lookup finds an artifact by fast key without sending IR", "[integration][cli]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  nlohmann::json compiled = Json(Cli(daemon, {"compile", TestData("cpu/saxpy.ll"), "--target", "cpu:x86-64",
                                              "--fast-key", "c0ffee", "--namespace", "tests", "--json"}));
  nlohmann::json found = Json(Cli(daemon, {"lookup", "--fast-key", "c0ffee", "--namespace", "tests", "--target",
                                           "cpu:x86-64", "-o", dir / "found.so", "--json"}));
  CHECK(found["status"] == "alias_hit");
  CHECK(found["artifact_key"] == compiled["artifact_key"]);
  CHECK(IsX86SharedObject(ReadFileOrDie(dir / "found.so")));

  RunResult other_ns = Cli(daemon, {"lookup", "--fast-key", "c0ffee", "--namespace", "elsewhere", "--target",
                                    "cpu:x86-64", "--json"});
  CHECK(other_ns.exit_code == 3);
  CHECK(nlohmann::json::parse(other_ns.out)["status"] == "miss");
  RunResult other_target = Cli(daemon, {"lookup", "--fast-key", "c0ffee", "--namespace", "tests", "--target",
                                        "cpu:x86-64+avx2", "--json"});
  CHECK(other_target.exit_code == 3);
}

TEST_CASE("qdcache stats --json counts compiles, hits, coalesced and errors", "[integration][cli]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  std::string ll = TestData("cpu/saxpy.ll");
  REQUIRE(Cli(daemon, {"compile", ll, "--target", "cpu:x86-64"}).exit_code == 0);
  REQUIRE(Cli(daemon, {"compile", ll, "--target", "cpu:x86-64"}).exit_code == 0);
  WriteFileOrDie(dir / "empty.ll", "");
  REQUIRE(Cli(daemon, {"compile", dir / "empty.ll", "--target", "cpu:x86-64"}).exit_code == 1);
  nlohmann::json s = Json(Cli(daemon, {"stats", "--json"}));
  CHECK(s["compiles"] == 1);
  CHECK(s["hits"] == 1);
  CHECK(s["coalesced"] == 0);
  CHECK(s["errors"] == 1);
  CHECK(s["store_artifacts"] == 1);
  for (const char* field : {"alias_hits", "stage_hits", "misses", "evictions", "evicted_bytes", "total_bytes",
                            "max_bytes", "stage_entries", "corrupt_dropped", "toolchain"}) {
    INFO(field);
    CHECK(s.contains(field));
  }
}

TEST_CASE("qdcache ping fails clearly when no daemon is running", "[integration][cli]") {
  TempDir dir;
  // --no-spawn: ping does not start a daemon anyway; the other commands would.
  for (const char* command : {"ping", "stats"}) {
    RunResult r = Run({CliBinary(), "--no-spawn", "--socket", dir / "nobody.sock", "--timeout", "2", command});
    INFO(command);
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.err, Catch::Contains("no qdcached is running at " + (dir / "nobody.sock")));
  }
}

namespace {

// The sub-commands `qdcache --help` lists.
std::set<std::string> ListedSubcommands() {
  RunResult help = Run({CliBinary(), "--help"});
  REQUIRE(help.exit_code == 0);
  std::set<std::string> names;
  std::istringstream lines(help.out);
  bool in_list = false;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("Subcommands:", 0) == 0 || line.rfind("SUBCOMMANDS:", 0) == 0) {
      in_list = true;
    } else if (in_list && line.rfind("  ", 0) == 0) {
      std::istringstream words(line);
      std::string name;
      words >> name;
      names.insert(name);
    } else if (in_list && !line.empty()) {
      in_list = false;
    }
  }
  return names;
}

}  // namespace

TEST_CASE("every qdcache command prints exactly one JSON document with --json",
          "[integration][cli]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  const std::string ll = TestData("cpu/saxpy.ll");
  const std::string key =
      Json(Cli(daemon, {"compile", ll, "--target", "cpu:x86-64", "--fast-key", "c0ffee",
                        "--namespace", "t", "--json"}))["artifact_key"];
  WriteFileOrDie(dir / "m.jsonl", R"({"ir": ")" + ll +
                                      R"(", "target": "cpu:x86-64"})"
                                      "\n");
  struct Command {
    std::vector<std::string> args;
    int exit_code = 0;
  };
  const std::vector<Command> commands = {
      {{"compile", ll, "--target", "cpu:x86-64"}},
      {{"lookup", "--fast-key", "c0ffee", "--namespace", "t", "--target", "cpu:x86-64"}},
      // Several keys: one document with a result per key (here a hit and a miss).
      {{"lookup", "--fast-key", "c0ffee", "--fast-key", "beef", "--namespace", "t", "--target",
        "cpu:x86-64"},
       3},
      {{"explain", ll, "--target", "cpu:x86-64"}},
      {{"ls"}},
      {{"inspect", key}},
      {{"evict", "--older-than", "30d"}},
      {{"trim", "--max-size", "1G"}},
      {{"clear", "--dry-run"}},
      {{"targets"}},
      {{"verify"}},
      {{"stats"}},
      {{"ping"}},
      {{"export", "--out", dir / "b.qdcb"}},
      {{"import", dir / "b.qdcb"}},
      {{"warm", dir / "m.jsonl"}},
      {{"keygen", dir / "key.pem"}},
      {{"shutdown"}},  // last: the daemon stops
  };
  // A lookup of several keys is one document, a result per key.
  nlohmann::json several =
      nlohmann::json::parse(Cli(daemon, {"lookup", "--fast-key", "c0ffee", "--fast-key", "beef", "--namespace",
                                         "t", "--target", "cpu:x86-64", "--json"})
                                .out);
  REQUIRE(several["results"].size() == 2);
  CHECK(several["results"][0]["fast_key"] == "c0ffee");
  CHECK(several["results"][0]["status"] == "alias_hit");
  CHECK(several["results"][1]["fast_key"] == "beef");
  CHECK(several["results"][1]["status"] == "miss");
  std::set<std::string> tested;
  for (const Command& c : commands) {
    std::vector<std::string> args = c.args;
    args.push_back("--json");
    RunResult r = Cli(daemon, args);
    INFO(c.args[0] << "\nstdout: " << r.out << "\nstderr: " << r.err);
    CHECK(r.exit_code == c.exit_code);
    nlohmann::json j;
    CHECK_NOTHROW(j = nlohmann::json::parse(r.out));  // one document, nothing after it
    CHECK(j.is_object());
    CHECK(r.err.find('\r') == std::string::npos);  // no progress line outside a terminal
    tested.insert(c.args[0]);
  }
  // A new sub-command must join this list. `ptxas` speaks ptxas's command
  // line, not ours (no --json): ptxas_front_door_test.cc covers it;
  // `completion` prints a shell script (cli_daily_test.cc).
  tested.insert("ptxas");
  tested.insert("completion");
  CHECK(tested == ListedSubcommands());
}

TEST_CASE("with --json an error is a JSON document too, and the exit code stays",
          "[integration][cli]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  WriteFileOrDie(dir / "bad.ll", "define void @f() {\n  ret i32x\n}\n");
  struct Case {
    std::vector<std::string> args;
    int exit_code;
    const char* code;
  };
  const Case cases[] = {
      {{"inspect", std::string(64, '0')}, 1, "NOT_FOUND"},
      {{"inspect", "xyz"}, 2, "INVALID_ARGUMENT"},
      {{"evict", "--older-than", "soon"}, 2, "INVALID_ARGUMENT"},
      {{"compile", dir / "bad.ll"},
       2,
       "INVALID_ARGUMENT"},  // --target missing: CLI11's usage error
      {{"compile", dir / "nowhere.ll", "--target", "cpu:x86-64"}, 1, "NOT_FOUND"},
      // A path that is not UTF-8 still makes valid JSON (its bytes replaced).
      {{"compile", dir / "\xff.ll", "--target", "cpu:x86-64"}, 1, "NOT_FOUND"},
      {{"import", dir / "nowhere.qdcb"}, 1, "NOT_FOUND"},
      {{"warm", dir / "nowhere.jsonl"}, 1, "NOT_FOUND"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = c.args;
    args.push_back("--json");
    RunResult r = Cli(daemon, args);
    INFO(c.args[0] << "\nstdout: " << r.out << "\nstderr: " << r.err);
    CHECK(r.exit_code == c.exit_code);
    nlohmann::json j = nlohmann::json::parse(r.out);
    CHECK(j["error"]["code"] == c.code);
    CHECK_FALSE(j["error"]["message"].get<std::string>().empty());
    CHECK_FALSE(r.err.empty());  // people still read the message on stderr
  }
  // A per-kernel error is the result's own document, as in a success.
  RunResult bad = Cli(daemon, {"compile", dir / "bad.ll", "--target", "cpu:x86-64", "--json"});
  CHECK(bad.exit_code == 1);
  nlohmann::json result = nlohmann::json::parse(bad.out);
  CHECK(result["status"] == "error");
  CHECK(result["error"]["code"] == "INVALID_ARGUMENT");

  for (const char* command : {"ping", "stats"}) {
    RunResult r =
        Run({CliBinary(), "--no-spawn", "--socket", dir / "nobody.sock", command, "--json"});
    INFO(command);
    CHECK(r.exit_code == 1);
    CHECK(nlohmann::json::parse(r.out)["error"]["code"] == "UNAVAILABLE");
  }
}

TEST_CASE("qdcache stats shows hits, misses and hit rate per cache level, aligned",
          "[integration][cli]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  const std::string ll = TestData("cpu/saxpy.ll");
  REQUIRE(
      Cli(daemon, {"compile", ll, "--target", "cpu:x86-64", "--fast-key", "aa", "--namespace", "n"})
          .exit_code == 0);
  REQUIRE(Cli(daemon, {"compile", ll, "--target", "cpu:x86-64"}).exit_code == 0);
  REQUIRE(Cli(daemon, {"lookup", "--fast-key", "aa", "--namespace", "n", "--target", "cpu:x86-64"})
              .exit_code == 0);
  REQUIRE(Cli(daemon, {"lookup", "--fast-key", "bb", "--namespace", "n", "--target", "cpu:x86-64"})
              .exit_code == 3);

  RunResult r = Cli(daemon, {"stats"});
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  std::map<std::string, std::vector<std::string>> rows;  // first word -> words
  std::istringstream lines(r.out);
  std::size_t rate_column = 0;
  std::map<std::string, std::size_t> rate_end;
  for (std::string line; std::getline(lines, line);) {
    std::istringstream in(line);
    std::vector<std::string> words;
    for (std::string w; in >> w;) words.push_back(w);
    if (words.empty()) continue;
    if (line.find("hit rate") != std::string::npos) rate_column = line.find("hit rate") + 8;
    rows[words[0]] = words;
    rate_end[words[0]] = line.find('%') == std::string::npos ? 0 : line.find('%') + 1;
  }
  REQUIRE(rows.count("alias") == 1);
  CHECK(rows["alias"][1] == "1");  // hits
  CHECK(rows["alias"][2] == "1");  // misses
  CHECK(rows["alias"][3] == "50.0%");
  CHECK(rows["artifact"][1] == "1");  // the second compile
  CHECK(rows["artifact"][2] == "1");  // the first
  CHECK(rows["artifact"][3] == "50.0%");
  CHECK(rate_end["alias"] == rate_column);  // rates end under the heading
  CHECK(rows.count("stage") == 1);
  CHECK_THAT(r.out, Catch::Contains("(remote off)"));
  CHECK_THAT(r.out, Catch::Contains("saved by hits") && Catch::Contains("compile time"));
  CHECK(rows["compiled"][1] == "1");
  CHECK(rows.count("evictions") == 1);
  CHECK(rows.count("uptime") == 1);

  nlohmann::json s = Json(Cli(daemon, {"stats", "--json"}));
  for (const char* level : {"alias", "artifact", "stage", "remote"}) {
    INFO(level);
    CHECK(s["levels"][level].contains("hits"));
    CHECK(s["levels"][level].contains("misses"));
    CHECK(s["levels"][level].contains("hit_rate"));
  }
  CHECK(s["levels"]["alias"]["hits"] == 1);
  CHECK(s["levels"]["alias"]["misses"] == 1);
  CHECK(s["levels"]["alias"]["hit_rate"] == Approx(0.5));
  CHECK(s["levels"]["artifact"]["hits"] == s["hits"]);
  CHECK(s["levels"]["artifact"]["misses"] == s["artifact_misses"]);
  CHECK(s["levels"]["remote"]["enabled"] == false);
  CHECK(s["levels"]["artifact"]["misses"] == 1);
  CHECK(s["compile_seconds_saved"].get<double>() > 0);  // the hits cost a compile each, once
  CHECK(s["zeroed"] == false);
}

TEST_CASE("qdcache stats --zero (or --reset) zeroes the counters for an admin only",
          "[integration][cli]") {
  TempDir dir;
  ::chmod(dir.path().c_str(), 0755);
  WriteFileOrDie(dir / "tokens",
                 "w write writer-token-0123456789\nboss admin admin-token-0123456789\n");
  REQUIRE(::chmod((dir / "tokens").c_str(), 0600) == 0);
  WriteFileOrDie(dir / "writer.token", "writer-token-0123456789\n");
  WriteFileOrDie(dir / "admin.token", "admin-token-0123456789\n");
  DaemonProcess daemon(dir.path(), {"--listen", "127.0.0.1:0", "--token-file", dir / "tokens"});
  daemon.Start();
  REQUIRE(Cli(daemon, {"compile", TestData("cpu/saxpy.ll"), "--target", "cpu:x86-64"}).exit_code ==
          0);
  auto as = [&](const std::string& token_file, std::vector<std::string> args) {
    args.insert(args.begin(),
                {CliBinary(), "--addr", daemon.TcpAddress(), "--token-file", dir / token_file});
    return Run(args);
  };

  RunResult refused = as("writer.token", {"stats", "--zero"});
  CHECK(refused.exit_code == 1);
  CHECK_THAT(refused.err, Catch::Contains("PERMISSION_DENIED"));
  CHECK(StatsOf(daemon).compiles() == 1);

  nlohmann::json zeroed = Json(as("admin.token", {"stats", "--zero", "--json"}));
  CHECK(zeroed["compiles"] == 1);  // as they were up to the reset
  CHECK(zeroed["zeroed"] == true);
  const v1::Stats after = StatsOf(daemon);
  CHECK(after.compiles() == 0);
  CHECK(after.store_artifacts() == 1);  // sizes are not counters

  REQUIRE(Cli(daemon, {"compile", TestData("cpu/saxpy.ll"), "--target", "cpu:x86-64"}).exit_code ==
          0);
  RunResult reset = as("admin.token", {"stats", "--reset"});
  CHECK(reset.exit_code == 0);
  CHECK_THAT(reset.out, Catch::Contains("counters zeroed"));
  CHECK(StatsOf(daemon).hits() == 0);
}
