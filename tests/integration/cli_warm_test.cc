// `qdcache warm MANIFEST` against a real daemon: a manifest's kernels compiled
// in batches, a second run served from the cache, and every mistake in the
// manifest reported with its line before anything is sent.
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/cli_json.h"
#include "tests/support/daemon_process.h"
#include "tests/support/kernels.h"
#include "tests/support/subprocess.h"

using namespace qdcache;
using namespace qdcache::testing;

namespace {

const char* const kCpuKernels[] = {"saxpy", "block_reduce", "stencil2d"};

// The CPU kernels of tests/data copied to <dir>/kernels/, and a manifest
// naming them by paths relative to <dir> (the CLI runs elsewhere).
std::string CpuManifest(const TempDir& dir) {
  std::filesystem::create_directories(dir / "kernels");
  std::string manifest = "# CPU kernels of the test data\n\n";
  for (const char* name : kCpuKernels) {
    std::filesystem::copy_file(TestData(std::string("cpu/") + name + ".ll"),
                               dir / ("kernels/" + std::string(name) + ".ll"));
    manifest += R"({"ir": "kernels/)" + std::string(name) +
                R"(.ll", "target": "cpu:x86-64", "opt": 2})" + "\n";
  }
  return manifest;
}

nlohmann::json Warm(const DaemonProcess& daemon, const std::string& manifest,
                    std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"warm", manifest, "--json"};
  args.insert(args.end(), extra.begin(), extra.end());
  return Json(Cli(daemon, args));
}

}  // namespace

TEST_CASE("qdcache warm compiles a manifest's kernels, and a second run finds them cached",
          "[integration][cli][warm]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  WriteFileOrDie(dir / "kernels.jsonl", CpuManifest(dir));

  nlohmann::json first = Warm(daemon, dir / "kernels.jsonl");
  CHECK(first["total"] == 3);
  CHECK(first["compiled"] == 3);
  CHECK(first["cached"] == 0);
  CHECK(first["failed"] == 0);
  CHECK(first["statuses"]["compiled"] == 3);
  CHECK(first["failures"].empty());
  CHECK(StatsOf(daemon).compiles() == 3);

  nlohmann::json second = Warm(daemon, dir / "kernels.jsonl");
  CHECK(second["compiled"] == 0);
  CHECK(second["cached"] == 3);
  CHECK(second["statuses"]["hit"] == 3);
  CHECK(StatsOf(daemon).compiles() == 3);

  // What warm compiled is what `compile` with the same options asks for.
  nlohmann::json compiled = Json(Cli(daemon, {"compile", dir / "kernels/saxpy.ll", "--target",
                                              "cpu:x86-64", "--opt", "2", "--json"}));
  CHECK(compiled["status"] == "hit");
}

TEST_CASE("qdcache warm says compiled, then already cached, in its summary line",
          "[integration][cli][warm]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  WriteFileOrDie(dir / "kernels.jsonl", CpuManifest(dir));
  RunResult first = Cli(daemon, {"warm", dir / "kernels.jsonl"});
  INFO(first.err);
  REQUIRE(first.exit_code == 0);
  CHECK_THAT(first.out, Catch::StartsWith("warmed 3 kernels") &&
                            Catch::Contains("3 compiled, 0 already cached"));
  RunResult second = Cli(daemon, {"warm", dir / "kernels.jsonl"});
  REQUIRE(second.exit_code == 0);
  CHECK_THAT(
      second.out,
      Catch::Contains("0 compiled, 3 already cached (3 hit, 0 stage_hit, 0 alias_hit), 0 failed"));
  // Not a terminal: no progress line, nothing on stderr at all.
  CHECK(first.err.empty());
  CHECK(second.err.empty());
}

TEST_CASE("qdcache warm records fast keys, so a lookup finds the kernels without IR",
          "[integration][cli][warm]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  WriteFileOrDie(dir / "m.jsonl",
                 R"({"ir": ")" + TestData("cpu/saxpy.ll") +
                     R"(", "target": "cpu:x86-64", "fast_key": "c0ffee", "namespace": "ci", )"
                     R"("entries": ["saxpy"], "key_extras": {"frontend": "1.2"}})"
                     "\n");
  REQUIRE(Warm(daemon, dir / "m.jsonl")["compiled"] == 1);
  nlohmann::json found = Json(Cli(daemon, {"lookup", "--fast-key", "c0ffee", "--namespace", "ci",
                                           "--target", "cpu:x86-64", "--json"}));
  CHECK(found["status"] == "alias_hit");
  // The key extra is in the key: without it, the same IR is a new compile.
  nlohmann::json without =
      Json(Cli(daemon, {"compile", TestData("cpu/saxpy.ll"), "--target", "cpu:x86-64", "--json"}));
  CHECK(without["status"] == "compiled");
  nlohmann::json with =
      Json(Cli(daemon, {"compile", TestData("cpu/saxpy.ll"), "--target", "cpu:x86-64", "--entry",
                        "saxpy", "--key-extra", "frontend=1.2", "--json"}));
  CHECK(with["status"] == "hit");
  CHECK(with["artifact_key"] == found["artifact_key"]);
}

TEST_CASE("qdcache warm compiles a CUDA kernel too", "[integration][cli][warm][cuda]") {
  QDC_REQUIRE_CUDA_BUILT();
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  WriteFileOrDie(dir / "m.jsonl",
                 R"({"ir": ")" + TestData("cuda/saxpy.ll") +
                     R"(", "target": "cuda:sm_90", "max_registers": 32, "lineinfo": true})"
                     "\n" +
                     R"({"ir": ")" + TestData("cpu/saxpy.ll") +
                     R"(", "target": "cpu:x86-64"})"
                     "\n");
  nlohmann::json first = Warm(daemon, dir / "m.jsonl");
  CHECK(first["compiled"] == 2);
  CHECK(first["failed"] == 0);
  nlohmann::json second = Warm(daemon, dir / "m.jsonl");
  CHECK(second["cached"] == 2);
  nlohmann::json cubin =
      Json(Cli(daemon, {"compile", TestData("cuda/saxpy.ll"), "--target", "cuda:sm_90",
                        "--max-registers", "32", "--lineinfo", "--json"}));
  CHECK(cubin["status"] == "hit");
  CHECK(cubin["kind"] == "cubin");
}

TEST_CASE("a malformed manifest line exits 2 naming the line, and nothing is compiled",
          "[integration][cli][warm]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  const std::string good =
      R"({"ir": ")" + TestData("cpu/saxpy.ll") + R"(", "target": "cpu:x86-64"})";
  const std::pair<std::string, std::string> cases[] = {
      {R"({"ir": "x.ll", "target": "cpu:x86-64", "optt": 3})", "unknown key \"optt\""},
      {R"({"ir": "x.ll", "target": "cpu:x86-64",)", "not JSON"},
      {R"({"ir": "x.ll"})", "\"target\" is missing"},
  };
  for (const auto& [bad, why] : cases) {
    INFO(bad);
    WriteFileOrDie(dir / "m.jsonl", good + "\n# a comment\n" + bad + "\n" + good + "\n");
    RunResult r = Cli(daemon, {"warm", dir / "m.jsonl"});
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains(dir / "m.jsonl" + ":3: ") && Catch::Contains(why));
    CHECK(r.out.empty());
    RunResult j = Cli(daemon, {"warm", dir / "m.jsonl", "--json"});
    CHECK(j.exit_code == 2);
    nlohmann::json error = nlohmann::json::parse(j.out);
    CHECK(error["error"]["code"] == "INVALID_ARGUMENT");
    CHECK_THAT(error["error"]["message"].get<std::string>(), Catch::Contains(":3: "));
  }
  const v1::Stats stats = StatsOf(daemon);
  CHECK(stats.compiles() == 0);
  CHECK(stats.requests() == 0);  // not even the good first line was sent
}

TEST_CASE("qdcache warm lists a missing IR file and a kernel the daemon refuses, with their lines",
          "[integration][cli][warm]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  WriteFileOrDie(dir / "bad.ll", "define void @f() {\n  ret i32x\n}\n");
  WriteFileOrDie(dir / "m.jsonl", R"({"ir": ")" + TestData("cpu/saxpy.ll") +
                                      R"(", "target": "cpu:x86-64"})"
                                      "\n" +
                                      R"({"ir": "missing.ll", "target": "cpu:x86-64"})"
                                      "\n" +
                                      R"({"ir": "bad.ll", "target": "cpu:x86-64"})"
                                      "\n");
  RunResult r = Cli(daemon, {"warm", dir / "m.jsonl", "--json"});
  CHECK(r.exit_code == 1);
  nlohmann::json j = nlohmann::json::parse(r.out);
  CHECK(j["total"] == 3);
  CHECK(j["compiled"] == 1);
  CHECK(j["failed"] == 2);
  REQUIRE(j["failures"].size() == 2);
  CHECK(j["failures"][0]["line"] == 2);
  CHECK(j["failures"][0]["ir"] == dir / "missing.ll");
  CHECK(j["failures"][0]["error"]["code"] == "NOT_FOUND");
  CHECK(j["failures"][1]["line"] == 3);
  CHECK(j["failures"][1]["error"]["code"] == "INVALID_ARGUMENT");
  CHECK_THAT(j["failures"][1]["error"]["message"].get<std::string>(),
             Catch::Contains("2:"));  // the IR's line

  RunResult text = Cli(daemon, {"warm", dir / "m.jsonl"});
  CHECK(text.exit_code == 1);
  CHECK_THAT(text.out, Catch::Contains("1 already cached") && Catch::Contains("2 failed"));
  CHECK_THAT(text.out,
             Catch::Contains(dir / "m.jsonl:2: " + dir / "missing.ll (cpu:x86-64): NOT_FOUND"));
  CHECK_THAT(text.out,
             Catch::Contains(dir / "m.jsonl:3: " + dir / "bad.ll (cpu:x86-64): INVALID_ARGUMENT"));
}

TEST_CASE(
    "qdcache warm splits batches the daemon finds too large (with --jobs 3: the outcome, not the overlap, is checked)",
    "[integration][cli][warm]") {
  TempDir dir;
  DaemonProcess daemon(dir.path(), {"--max-batch", "2"});
  daemon.Start();
  std::string manifest;
  for (int i = 0; i < 3; ++i) {
    for (const char* name : kCpuKernels) {
      manifest += R"({"ir": ")" + TestData(std::string("cpu/") + name + ".ll") +
                  R"(", "target": "cpu:x86-64", "key_extras": {"copy": ")" + std::to_string(i) +
                  "\"}}\n";
    }
  }
  WriteFileOrDie(dir / "m.jsonl", manifest);
  nlohmann::json j = Warm(daemon, dir / "m.jsonl", {"--batch", "5", "--jobs", "3"});
  CHECK(j["total"] == 9);
  CHECK(j["compiled"] == 9);
  CHECK(j["failed"] == 0);
  CHECK(StatsOf(daemon).compiles() == 9);
}

TEST_CASE("qdcache warm - reads the manifest from stdin", "[integration][cli][warm]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  WriteFileOrDie(dir / "m.jsonl", R"({"ir": ")" + TestData("cpu/saxpy.ll") +
                                      R"(", "target": "cpu:x86-64"})"
                                      "\n");
  RunResult r = Run({"/bin/sh", "-c", "exec \"$0\" --socket \"$1\" warm - --json < \"$2\"",
                     CliBinary(), daemon.socket_path(), dir / "m.jsonl"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  nlohmann::json j = nlohmann::json::parse(r.out);
  CHECK(j["manifest"] == "<stdin>");
  CHECK(j["compiled"] == 1);
}

TEST_CASE(
    "qdcache warm stops sending after the daemon refuses a whole call, and counts what it did not "
    "send",
    "[integration][cli][warm]") {
  TempDir dir;
  ::chmod(dir.path().c_str(), 0755);
  // A read token whose compiles the daemon refuses: every call fails alike.
  WriteFileOrDie(dir / "tokens", "reader read reader-token-0123456789\n");
  REQUIRE(::chmod((dir / "tokens").c_str(), 0600) == 0);
  WriteFileOrDie(dir / "reader.token", "reader-token-0123456789\n");
  DaemonProcess daemon(dir.path(), {"--listen", "127.0.0.1:0", "--token-file", dir / "tokens",
                                    "--read-compile", "refuse"});
  daemon.Start();
  WriteFileOrDie(dir / "m.jsonl", CpuManifest(dir));
  RunResult r =
      Run({CliBinary(), "--addr", daemon.TcpAddress(), "--token-file", dir / "reader.token", "warm",
           dir / "m.jsonl", "--batch", "1", "--jobs", "1", "--json"});
  INFO(r.err);
  CHECK(r.exit_code == 1);
  nlohmann::json j = nlohmann::json::parse(r.out);
  CHECK(j["failed"] == 1);
  CHECK(j["not_sent"] == 2);
  REQUIRE(j["failures"].size() == 1);
  CHECK(j["failures"][0]["error"]["code"] == "PERMISSION_DENIED");
  CHECK_THAT(r.err, Catch::Contains("2 kernels not sent"));
}

TEST_CASE("qdcache warm fails an entry whose IR is a FIFO instead of waiting on it, and goes on",
          "[integration][cli][warm]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  // Nobody ever writes to it: opening it for reading the usual way blocks forever.
  REQUIRE(::mkfifo((dir / "fifo.ll").c_str(), 0600) == 0);
  WriteFileOrDie(dir / "m.jsonl", R"({"ir": "fifo.ll", "target": "cpu:x86-64"})"
                                  "\n" +
                                      std::string(R"({"ir": ")") + TestData("cpu/saxpy.ll") +
                                      R"(", "target": "cpu:x86-64"})"
                                      "\n");
  RunResult r = Cli(daemon, {"warm", dir / "m.jsonl", "--json", "--batch", "1", "--jobs", "1"});
  INFO(r.err);
  CHECK(r.exit_code == 1);
  nlohmann::json j = nlohmann::json::parse(r.out);
  CHECK(j["compiled"] == 1);
  CHECK(j["failed"] == 1);
  REQUIRE(j["failures"].size() == 1);
  CHECK(j["failures"][0]["line"] == 1);
  CHECK(j["failures"][0]["error"]["code"] == "FAILED_PRECONDITION");
  CHECK_THAT(j["failures"][0]["error"]["message"].get<std::string>(),
             Catch::Contains(dir / "fifo.ll") && Catch::Contains("not a regular file"));
}

TEST_CASE("qdcache warm's calls have no deadline unless --timeout is given, which still bounds them",
          "[integration][cli][warm]") {
  const RunResult help = Run({CliBinary(), "warm", "--help"});
  CHECK_THAT(help.out, Catch::Contains("no deadline unless --timeout is given"));

  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  WriteFileOrDie(dir / "m.jsonl", CpuManifest(dir));
  // No cold compile ends within a millisecond.
  RunResult r = Cli(daemon, {"--timeout", "0.001", "warm", dir / "m.jsonl", "--json", "--batch",
                             "3", "--jobs", "1"});
  INFO(r.err);
  CHECK(r.exit_code == 1);
  nlohmann::json j = nlohmann::json::parse(r.out);
  REQUIRE(j["failures"].size() == 3);
  CHECK(j["failures"][0]["error"]["code"] == "DEADLINE_EXCEEDED");
}
