// qdcache export / import between two real daemons on separate stores: the
// CI flow (export, store the file, import into an empty cache), filters,
// damaged and truncated bundles, roles, idempotence, and the CLI's output.
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "bundle/bundle_format.h"
#include "bundle/bundle_reader.h"
#include "bundle/bundle_writer.h"
#include "tests/support/cli_json.h"
#include "tests/support/daemon_process.h"
#include "tests/support/kernels.h"
#include "tests/support/subprocess.h"

using namespace qdcache;
using namespace qdcache::testing;

namespace {

const char* const kFiles[] = {"cpu/saxpy.ll", "cpu/block_reduce.ll", "cpu/stencil2d.ll"};
constexpr int kKernels = 6;  // 3 files x opt levels 2 and 3

struct Kernel {
  std::string fast_key;
  std::string ns;
};

// Compiles kernel i (0 <= i < kKernels) with fast key "k<i>" in `ns`.
Kernel CompileKernel(client::Client& c, int i, const std::string& ns) {
  v1::KernelDescriptor d = Descriptor(kFiles[i % 3], "cpu:x86-64");
  d.mutable_options()->set_opt_level(2 + i / 3);
  d.set_fast_key("k" + std::to_string(i));
  d.set_namespace_(ns);
  v1::CompileResult r = CompileOne(c, d);
  INFO(r.error().message());
  REQUIRE(r.status() == v1::CACHE_STATUS_COMPILED);
  return {d.fast_key(), ns};
}

v1::CacheStatus Lookup(client::Client& c, const Kernel& k) {
  v1::LookupRequest request;
  v1::FastKeyQuery* q = request.add_queries();
  q->set_fast_key(k.fast_key);
  q->set_namespace_(k.ns);
  q->mutable_target()->mutable_cpu()->set_cpu("x86-64");
  auto response = c.Lookup(request);
  REQUIRE(response.ok());
  return response->results(0).status();
}

int Hits(client::Client& c, const std::vector<Kernel>& kernels) {
  int hits = 0;
  for (const Kernel& k : kernels) hits += Lookup(c, k) == v1::CACHE_STATUS_ALIAS_HIT ? 1 : 0;
  return hits;
}

std::uint64_t Compiles(client::Client& c) {
  auto stats = c.Stats();
  REQUIRE(stats.ok());
  return stats->compiles();
}

// Two daemons with stores of their own, in one temporary directory.
struct TwoDaemons {
  TwoDaemons() : a(dir / "a"), b(dir / "b") {
    std::filesystem::create_directories(dir / "a");
    std::filesystem::create_directories(dir / "b");
    a.Start();
    b.Start();
    ca = a.Connect();
    cb = b.Connect();
  }
  std::vector<Kernel> CompileOnA(int n, const std::string& ns = "ci", int first = 0) {
    std::vector<Kernel> out;
    for (int i = first; i < first + n; ++i) out.push_back(CompileKernel(*ca, i, ns));
    return out;
  }
  TempDir dir;
  DaemonProcess a, b;
  std::unique_ptr<client::Client> ca, cb;
};

// Rewrites a bundle with one entry per block, letting `edit` change each
// entry (by index) and say whether to flip a byte in its compressed block.
template <typename Edit>
std::string Rebundle(const std::string& bytes, Edit edit) {
  auto reader = bundle::BundleReader::Open(bundle::StringSource(bytes));
  REQUIRE(reader.ok());
  std::string out;
  bundle::WriterOptions options;
  options.block_bytes = 1;
  auto writer = bundle::BundleWriter::Create(bundle::StringSink(&out), options);
  REQUIRE(writer.ok());
  std::vector<std::size_t> flips;
  for (int i = 0;; ++i) {
    auto next = (*reader)->Next();
    REQUIRE(next.ok());
    if (!next->has_value()) break;
    const bool flip = edit(i, **next);
    const std::size_t before = out.size();
    REQUIRE((*writer)->Add(**next).ok());
    if (flip)
      flips.push_back(before + bundle::kBlockHeaderSize +
                      (out.size() - before - bundle::kBlockHeaderSize) / 2);
  }
  REQUIRE((*writer)->Finish().ok());
  for (std::size_t at : flips) out[at] = static_cast<char>(out[at] ^ 0x5a);
  return out;
}

}  // namespace

TEST_CASE(
    "export from one daemon, import into an empty one: every fast key hits and nothing compiles",
    "[integration][bundle]") {
  TwoDaemons d;
  const std::vector<Kernel> kernels = d.CompileOnA(kKernels);
  RunResult exported = Cli(d.a, {"export", "--out", d.dir / "ci.qdcb"});
  INFO(exported.err);
  REQUIRE(exported.exit_code == 0);
  CHECK_THAT(exported.out, Catch::StartsWith("exported 6 artifacts, 6 aliases ("));
  CHECK_THAT(exported.out, Catch::Contains(" in "));
  CHECK(exported.err.empty());  // stderr is a pipe: no progress line
  CHECK_FALSE(std::filesystem::exists(d.dir / ("ci.qdcb.tmp")));

  RunResult imported = Cli(d.b, {"import", d.dir / "ci.qdcb"});
  INFO(imported.err);
  REQUIRE(imported.exit_code == 0);
  CHECK_THAT(imported.out, Catch::StartsWith("imported 6 artifacts, 6 aliases in "));
  CHECK(imported.err.empty());
  CHECK(Hits(*d.cb, kernels) == kKernels);
  CHECK(Compiles(*d.cb) == 0);
  // Compiling the same IR on B is a plain hit too: the artifact keys agree.
  v1::KernelDescriptor again = Descriptor(kFiles[0], "cpu:x86-64");
  again.mutable_options()->set_opt_level(2);
  CHECK(CompileOne(*d.cb, again).status() == v1::CACHE_STATUS_HIT);
  CHECK(Compiles(*d.cb) == 0);
}

TEST_CASE("importing the same bundle twice is harmless", "[integration][bundle]") {
  TwoDaemons d;
  const std::vector<Kernel> kernels = d.CompileOnA(3);
  REQUIRE(Cli(d.a, {"export", "--out", d.dir / "b.qdcb"}).exit_code == 0);
  for (int round = 0; round < 2; ++round) {
    nlohmann::json j = Json(Cli(d.b, {"import", d.dir / "b.qdcb", "--json"}));
    CHECK(j["artifacts"] == 3);
    CHECK(j["aliases"] == 3);
    CHECK(j["skipped"] == 0);
    CHECK(j["complete"] == true);
  }
  auto stats = d.cb->Stats();
  REQUIRE(stats.ok());
  CHECK(stats->store_artifacts() == 3);
  CHECK(stats->store_aliases() == 3);
  CHECK(Hits(*d.cb, kernels) == 3);
}

TEST_CASE("export --namespace takes that namespace's aliases and their artifacts only",
          "[integration][bundle]") {
  TwoDaemons d;
  const std::vector<Kernel> wanted = d.CompileOnA(2, "wanted");
  const std::vector<Kernel> other = d.CompileOnA(2, "other", 2);
  nlohmann::json e =
      Json(Cli(d.a, {"export", "--out", d.dir / "ns.qdcb", "--namespace", "wanted", "--json"}));
  CHECK(e["artifacts"] == 2);
  CHECK(e["aliases"] == 2);
  CHECK(Json(Cli(d.b, {"import", d.dir / "ns.qdcb", "--json"}))["artifacts"] == 2);
  CHECK(Hits(*d.cb, wanted) == 2);
  CHECK(Hits(*d.cb, other) == 0);
}

TEST_CASE("export --since takes recent entries and refuses a bad duration",
          "[integration][bundle]") {
  TwoDaemons d;
  d.CompileOnA(2);
  // Everything here was made just now; the age cut itself is covered by the
  // daemon's unit tests with a fake clock.
  CHECK(Json(Cli(d.a, {"export", "--out", d.dir / "s.qdcb", "--since", "1h",
                       "--json"}))["artifacts"] == 2);
  RunResult bad = Cli(d.a, {"export", "--out", d.dir / "t.qdcb", "--since", "soon"});
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.err, Catch::Contains("--since"));
  CHECK_FALSE(std::filesystem::exists(d.dir / "t.qdcb"));
}

TEST_CASE("a damaged bundle imports every good entry and counts the skipped ones",
          "[integration][bundle]") {
  TwoDaemons d;
  const std::vector<Kernel> kernels = d.CompileOnA(4);
  REQUIRE(Cli(d.a, {"export", "--out", d.dir / "good.qdcb"}).exit_code == 0);
  // Entry 0 (an artifact) gets a payload that no longer matches its digest:
  // the daemon refuses it and its alias. One alias of another artifact is
  // damaged in the file (a byte flipped in its compressed block).
  std::string refused_key;
  bool damaged_one = false;
  const std::string bad =
      Rebundle(ReadFileOrDie(d.dir / "good.qdcb"), [&](int i, v1::BundleEntry& e) {
        if (i == 0) {
          refused_key = e.artifact().artifact_key();
          e.mutable_artifact()->mutable_payload()->back() ^= 1;
          return false;
        }
        if (e.has_alias() && e.alias().artifact_key() != refused_key && !damaged_one) {
          damaged_one = true;
          return true;
        }
        return false;
      });
  WriteFileOrDie(d.dir / "bad.qdcb", bad);
  RunResult r = Cli(d.b, {"import", d.dir / "bad.qdcb", "--json"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  nlohmann::json j = nlohmann::json::parse(r.out);
  CHECK(j["artifacts"] == 3);
  CHECK(j["aliases"] == 2);
  CHECK(j["damaged"] == 1);
  CHECK(j["refused"] == 2);
  CHECK(j["skipped"] == 3);
  CHECK(j["problems"].size() == 3);
  CHECK(Hits(*d.cb, kernels) == 2);
  RunResult human = Cli(d.b, {"import", d.dir / "bad.qdcb"});
  CHECK(human.exit_code == 0);
  CHECK_THAT(human.out,
             Catch::Contains("3 skipped (1 damaged in the file, 2 refused by the daemon)"));
}

TEST_CASE("a truncated bundle imports what came before it and fails", "[integration][bundle]") {
  TwoDaemons d;
  const std::vector<Kernel> kernels = d.CompileOnA(3);
  REQUIRE(Cli(d.a, {"export", "--out", d.dir / "full.qdcb"}).exit_code == 0);
  const std::string one_per_block =
      Rebundle(ReadFileOrDie(d.dir / "full.qdcb"), [](int, v1::BundleEntry&) { return false; });
  WriteFileOrDie(d.dir / "cut.qdcb", one_per_block.substr(0, one_per_block.size() - 10));
  RunResult r = Cli(d.b, {"import", d.dir / "cut.qdcb", "--json"});
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::Contains("truncated"));
  nlohmann::json j = nlohmann::json::parse(r.out);
  CHECK(j["complete"] == false);
  CHECK(j["artifacts"] == 3);
  CHECK(j["aliases"] == 3);
  CHECK(Hits(*d.cb, kernels) == 3);
}

TEST_CASE("import explains what is wrong with the file", "[integration][bundle]") {
  TwoDaemons d;
  RunResult missing = Cli(d.b, {"import", d.dir / "nowhere.qdcb"});
  CHECK(missing.exit_code == 1);
  CHECK_THAT(missing.err, Catch::Contains("cannot open") && Catch::Contains("nowhere.qdcb"));
  WriteFileOrDie(d.dir / "notes.txt", "these are not the artifacts you are looking for\n");
  RunResult not_bundle = Cli(d.b, {"import", d.dir / "notes.txt"});
  CHECK(not_bundle.exit_code == 1);
  CHECK_THAT(not_bundle.err, Catch::Contains("not a qdcache bundle"));
  std::string future(bundle::kMagic);
  future += std::string("\x09\0\0\0\0\0\0\0", 8);
  WriteFileOrDie(d.dir / "future.qdcb", future);
  RunResult version = Cli(d.b, {"import", d.dir / "future.qdcb"});
  CHECK(version.exit_code == 1);
  CHECK_THAT(version.err, Catch::Contains("version 9"));
}

TEST_CASE("a failed export leaves no file behind", "[integration][bundle]") {
  TwoDaemons d;
  d.CompileOnA(1);
  RunResult no_dir = Cli(d.a, {"export", "--out", d.dir / "missing-dir/x.qdcb"});
  CHECK(no_dir.exit_code == 1);
  CHECK_THAT(no_dir.err, Catch::Contains("missing-dir"));
  d.a.Kill();
  RunResult no_daemon = Cli(d.a, {"--timeout", "5", "export", "--out", d.dir / "x.qdcb"});
  CHECK(no_daemon.exit_code == 1);
  for (const auto& entry : std::filesystem::directory_iterator(d.dir.path())) {
    CHECK(entry.path().filename().string().rfind("x.qdcb", 0) == std::string::npos);
  }
}

TEST_CASE("import needs role admin, export role read, and export --all-tenants role admin",
          "[integration][bundle]") {
  TempDir dir;
  const std::string tokens = dir / "tokens";
  WriteFileOrDie(tokens,
                 "writer write writer-token-8a7c6b5d4e3f\nreader read reader-token-5f2b9c0d1e7a\n"
                 "boss admin admin-token-0f1e2d3c4b5a6\n");
  REQUIRE(::chmod(tokens.c_str(), 0600) == 0);
  const auto token_file = [&](const std::string& name, const std::string& token) {
    WriteFileOrDie(dir / name, token + "\n");
    return dir / name;
  };
  const std::string writer = token_file("writer.token", "writer-token-8a7c6b5d4e3f");
  const std::string reader = token_file("reader.token", "reader-token-5f2b9c0d1e7a");
  const std::string admin = token_file("admin.token", "admin-token-0f1e2d3c4b5a6");
  std::filesystem::create_directories(dir / "daemon");
  DaemonProcess daemon(dir / "daemon", {"--listen", "127.0.0.1:0", "--token-file", tokens});
  daemon.Start();
  CompileKernel(*daemon.Connect(), 0, "ci");
  const auto tcp = [&](const std::string& token, std::vector<std::string> args) {
    args.insert(args.begin(), {CliBinary(), "--addr", daemon.TcpAddress(), "--token-file", token});
    return Run(args);
  };
  RunResult exported = tcp(reader, {"export", "--out", dir / "r.qdcb", "--json"});
  INFO(exported.err);
  REQUIRE(exported.exit_code == 0);
  CHECK(nlohmann::json::parse(exported.out)["artifacts"] == 1);
  CHECK(nlohmann::json::parse(exported.out)["aliases"] ==
        0);  // the unix peer's alias is not token:reader's

  RunResult all = tcp(reader, {"export", "--out", dir / "all.qdcb", "--all-tenants"});
  CHECK(all.exit_code == 1);
  CHECK_THAT(all.err, Catch::Contains("PERMISSION_DENIED") && Catch::Contains("needs role admin"));
  CHECK_FALSE(std::filesystem::exists(dir / "all.qdcb"));
  RunResult all_admin =
      tcp(admin, {"export", "--out", dir / "all.qdcb", "--all-tenants", "--json"});
  REQUIRE(all_admin.exit_code == 0);
  CHECK(nlohmann::json::parse(all_admin.out)["aliases"] == 1);

  RunResult refused = tcp(writer, {"import", dir / "all.qdcb"});
  CHECK(refused.exit_code == 1);
  CHECK_THAT(refused.err, Catch::Contains("PERMISSION_DENIED") &&
                              Catch::Contains("Import needs role admin") &&
                              Catch::Contains("token:writer has role write"));
  RunResult as_admin = tcp(admin, {"import", dir / "all.qdcb", "--keep-tenants", "--json"});
  INFO(as_admin.err);
  CHECK(as_admin.exit_code == 0);
}
