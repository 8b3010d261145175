// Fast keys that cannot go stale silently, through a real daemon: fast-key
// conflicts and their policies, key components kept in records (explain
// from keys, across restarts, and records from before they were kept), miss
// reasons, and dependency manifests (docs/integration.md, "Fast keys").
#include <google/protobuf/unknown_field_set.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <set>

#include "client/dependencies.h"
#include "common/digest.h"
#include "store/record_codec.h"
#include "tests/support/cli_json.h"
#include "tests/support/daemon_process.h"
#include "tests/support/kernels.h"
#include "tests/support/temp_dir.h"
#include "tests/unit/store/store_test_util.h"

using namespace qdcache;
using namespace qdcache::testing;

namespace {

// A CPU kernel returning `n`: its IR differs per `n`, nothing else does.
v1::KernelDescriptor BlockKernel(int n, const std::string& fast_key, const std::string& ns = "buggy") {
  v1::KernelDescriptor d = Descriptor("cpu/saxpy.ll", "cpu:x86-64");
  d.set_ir("define i64 @block() {\n  ret i64 " + std::to_string(n) + "\n}\n");
  d.set_fast_key(fast_key);
  d.set_namespace_(ns);
  return d;
}

std::set<std::string> Names(const google::protobuf::RepeatedPtrField<v1::ComponentChange>& changes) {
  std::set<std::string> out;
  for (const v1::ComponentChange& c : changes) out.insert(c.name());
  return out;
}

v1::CompileResult LookupOne(client::Client& client, const v1::KernelDescriptor& d) {
  v1::LookupRequest request;
  v1::FastKeyQuery* q = request.add_queries();
  q->set_fast_key(d.fast_key());
  q->set_namespace_(d.namespace_());
  *q->mutable_target() = d.target();
  Expected<v1::LookupResponse> response = client.Lookup(request);
  REQUIRE(response.ok());
  REQUIRE(response->results_size() == 1);
  return response->results(0);
}

// Rewrites every stored record as a daemon from before key components were
// kept wrote it: the metadata without field 14 (daemon stopped).
void ForgetComponents(const std::string& store_dir) {
  store::testing::RawDb db(store_dir);
  for (const std::string& key : db.Keys(db.artifacts())) {
    store::ArtifactRecord record;
    REQUIRE(store::DecodeRecord(*db.Get(db.artifacts(), key), &record).ok());
    google::protobuf::UnknownFieldSet fields;
    REQUIRE(fields.ParseFromString(record.metadata));
    google::protobuf::UnknownFieldSet kept;
    for (int i = 0; i < fields.field_count(); ++i) {
      if (fields.field(i).number() != 14) kept.AddField(fields.field(i));
    }
    REQUIRE(kept.field_count() < fields.field_count());
    record.metadata.clear();
    REQUIRE(kept.SerializeToString(&record.metadata));
    db.Put(db.artifacts(), key, store::EncodeRecord(record));
  }
}

}  // namespace

TEST_CASE("a buggy frontend's fast key sent with two IRs is a conflict naming ir alone",
          "[integration][fast-key]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  auto client = daemon.Connect();
  const v1::CompileResult first = CompileOne(*client, BlockKernel(128, "saxpy-fk"));
  REQUIRE(first.status() == v1::CACHE_STATUS_COMPILED);
  CHECK_FALSE(first.has_alias_conflict());
  CHECK_FALSE(first.has_miss_reason());  // a first compile has no earlier artifact

  const v1::CompileResult second = CompileOne(*client, BlockKernel(256, "saxpy-fk"));
  REQUIRE(second.status() == v1::CACHE_STATUS_COMPILED);
  REQUIRE(second.has_alias_conflict());
  const v1::AliasConflict& c = second.alias_conflict();
  CHECK(Names(c.changes()) == std::set<std::string>{"ir"});
  CHECK(c.previous_artifact_key() == first.artifact().artifact_key());
  CHECK(c.policy() == v1::ALIAS_POLICY_REBIND);
  CHECK(c.rebound());
  CHECK_FALSE(c.has_warning());
  CHECK(c.message().find("ir digest changed") != std::string::npos);
  CHECK(StatsOf(daemon).alias_conflicts() == 1);
  // Rebound: the alias names the second artifact.
  CHECK(LookupOne(*client, BlockKernel(0, "saxpy-fk")).artifact().artifact_key() == second.artifact().artifact_key());

  // The same compile again is a hit, and the alias already names it: no conflict.
  const v1::CompileResult again = CompileOne(*client, BlockKernel(256, "saxpy-fk"));
  CHECK(again.status() == v1::CACHE_STATUS_HIT);
  CHECK_FALSE(again.has_alias_conflict());
  CHECK(StatsOf(daemon).alias_conflicts() == 1);
}

TEST_CASE("under strict a conflicting compile returns its artifact and leaves the alias where it was",
          "[integration][fast-key]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  auto client = daemon.Connect();
  const v1::CompileResult first = CompileOne(*client, BlockKernel(128, "strict-fk"));
  v1::KernelDescriptor buggy = BlockKernel(256, "strict-fk");
  buggy.set_alias_policy(v1::ALIAS_POLICY_STRICT);
  const v1::CompileResult second = CompileOne(*client, buggy);
  REQUIRE(second.status() == v1::CACHE_STATUS_COMPILED);
  REQUIRE(second.has_artifact());
  REQUIRE(second.has_alias_conflict());
  CHECK_FALSE(second.alias_conflict().rebound());
  CHECK(second.alias_conflict().policy() == v1::ALIAS_POLICY_STRICT);
  CHECK(second.alias_conflict().warning().code() == static_cast<int>(Code::kFailedPrecondition));
  CHECK(Names(second.alias_conflict().changes()) == std::set<std::string>{"ir"});
  CHECK(LookupOne(*client, buggy).artifact().artifact_key() == first.artifact().artifact_key());

  // The CLI says it on stderr and fails, having written the artifact.
  const std::string ir = dir.path() + "/k.ll";
  std::ofstream(ir) << "define i64 @block() {\n  ret i64 512\n}\n";
  const std::string out = dir.path() + "/k.so";
  RunResult r = Cli(daemon, {"compile", ir, "--target", "cpu:x86-64", "--fast-key-text", "strict-fk", "--namespace",
                             "buggy", "--alias-policy", "strict", "-o", out});
  INFO(r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("fast-key conflict") != std::string::npos);
  CHECK(std::filesystem::file_size(out) > 0);
  CHECK(LookupOne(*client, buggy).artifact().artifact_key() == first.artifact().artifact_key());
  CHECK(StatsOf(daemon).alias_conflicts() == 2);

  // --alias-policy-floor strict makes a request's rebind strict; off is no check at all.
  REQUIRE(daemon.Stop() == 0);
  daemon.set_extra_args({"--alias-policy-floor", "strict"});
  daemon.Start();
  client = daemon.Connect();
  const v1::CompileResult floored = CompileOne(*client, BlockKernel(1024, "strict-fk"));
  REQUIRE(floored.has_alias_conflict());
  CHECK(floored.alias_conflict().policy() == v1::ALIAS_POLICY_STRICT);
  CHECK(LookupOne(*client, buggy).artifact().artifact_key() == first.artifact().artifact_key());
  REQUIRE(daemon.Stop() == 0);
  daemon.set_extra_args({});
  daemon.Start();
  client = daemon.Connect();
  v1::KernelDescriptor unchecked = BlockKernel(2048, "strict-fk");
  unchecked.set_alias_policy(v1::ALIAS_POLICY_OFF);
  const v1::CompileResult off = CompileOne(*client, unchecked);
  CHECK_FALSE(off.has_alias_conflict());
  CHECK(LookupOne(*client, buggy).artifact().artifact_key() == off.artifact().artifact_key());
  CHECK(StatsOf(daemon).alias_conflicts() == 0);
}

TEST_CASE("explain --key A --key B names exactly the option that differs, after a restart too",
          "[integration][fast-key]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  auto client = daemon.Connect();
  v1::KernelDescriptor d = Descriptor("cpu/saxpy.ll", "cpu:x86-64");
  const std::string a = ToHex(CompileOne(*client, d).artifact().artifact_key());
  d.mutable_options()->set_fast_math(true);
  const std::string b = ToHex(CompileOne(*client, d).artifact().artifact_key());
  REQUIRE(a != b);
  for (int round = 0; round < 2; ++round) {
    INFO("round " << round);
    // Short prefixes resolve as inspect's do.
    nlohmann::json j = Json(Cli(daemon, {"explain", "--key", a.substr(0, 12), "--key", b, "--json"}));
    REQUIRE(j["differences"].size() == 1);
    CHECK(j["differences"][0]["name"] == "options.fast_math");
    CHECK(j["differences"][0]["before"] == "0");
    CHECK(j["differences"][0]["after"] == "1");
    CHECK(j["artifacts"][0]["components_known"] == true);
    CHECK(j["artifacts"][0]["artifact_key"] == a);
    RunResult text = Cli(daemon, {"explain", "--key", a, "--key", b});
    CHECK(text.exit_code == 0);
    CHECK(text.out.find("* options.fast_math") != std::string::npos);
    REQUIRE(daemon.Stop() == 0);
    daemon.Start();
  }
  const std::string absent = a.rfind("0000", 0) == 0 || b.rfind("0000", 0) == 0 ? "ffff" : "0000";
  RunResult unknown = Cli(daemon, {"explain", "--key", absent, "--json"});
  CHECK(unknown.exit_code == 1);
  CHECK(unknown.err.find("no stored artifact") != std::string::npos);
}

TEST_CASE("a compile that misses says which input changed since the kernel's earlier artifact",
          "[integration][fast-key]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  auto client = daemon.Connect();
  v1::KernelDescriptor d = Descriptor("cpu/saxpy.ll", "cpu:x86-64");
  d.set_fast_key("saxpy");
  const v1::CompileResult first = CompileOne(*client, d);
  CHECK_FALSE(first.has_miss_reason());
  d.mutable_options()->set_fast_math(true);
  const v1::CompileResult second = CompileOne(*client, d);
  REQUIRE(second.has_miss_reason());
  CHECK(second.miss_reason().basis() == "fast_key");
  CHECK(Names(second.miss_reason().changes()) == std::set<std::string>{"options.fast_math"});
  CHECK(second.miss_reason().message() == "options.fast_math: 0 → 1");
  CHECK(second.miss_reason().previous_artifact_key() == first.artifact().artifact_key());
  // A hit has no miss reason.
  CHECK_FALSE(CompileOne(*client, d).has_miss_reason());

  // Without a fast key, the kernel is known by its entry points; after a
  // restart, by its fast key's alias in the store.
  v1::KernelDescriptor plain = Descriptor("cpu/saxpy.ll", "cpu:x86-64");
  plain.mutable_options()->set_opt_level(1);
  CHECK_FALSE(CompileOne(*client, plain).has_miss_reason());
  plain.mutable_options()->set_opt_level(2);
  const v1::CompileResult by_entries = CompileOne(*client, plain);
  REQUIRE(by_entries.has_miss_reason());
  CHECK(by_entries.miss_reason().basis() == "entry_points");
  CHECK(Names(by_entries.miss_reason().changes()) == std::set<std::string>{"options.opt_level"});

  REQUIRE(daemon.Stop() == 0);
  daemon.Start();
  client = daemon.Connect();
  d.mutable_options()->set_fmad(false);
  const v1::CompileResult after_restart = CompileOne(*client, d);
  REQUIRE(after_restart.has_miss_reason());
  CHECK(Names(after_restart.miss_reason().changes()) == std::set<std::string>{"options.fmad"});

  // The CLI prints it with --explain-miss.
  const std::string ir = dir.path() + "/k.ll";
  std::ofstream(ir) << "define i64 @block() {\n  ret i64 1\n}\n";
  REQUIRE(Cli(daemon, {"compile", ir, "--target", "cpu:x86-64", "--fast-key-text", "cli"}).exit_code == 0);
  RunResult r = Cli(daemon, {"compile", ir, "--target", "cpu:x86-64", "--fast-key-text", "cli", "-O1",
                             "--explain-miss"});
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("miss reason: options.opt_level: 3 → 1") != std::string::npos);
}

TEST_CASE("records without stored components still serve, and explain says the components are unknown",
          "[integration][fast-key]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  v1::KernelDescriptor d = BlockKernel(128, "old-fk");
  const std::string key = CompileOne(*daemon.Connect(), d).artifact().artifact_key();
  REQUIRE(daemon.Stop() == 0);
  ForgetComponents(daemon.store_dir());
  daemon.Start();
  auto client = daemon.Connect();
  CHECK(CompileOne(*client, d).status() == v1::CACHE_STATUS_HIT);
  CHECK(LookupOne(*client, d).status() == v1::CACHE_STATUS_ALIAS_HIT);
  nlohmann::json j = Json(Cli(daemon, {"explain", "--key", ToHex(key), "--json"}));
  CHECK(j["artifacts"][0]["stored"] == true);
  CHECK(j["artifacts"][0]["components_known"] == false);
  CHECK(j["artifacts"][0]["components"].empty());
  // A conflict with such a record still counts, with its components unknown.
  const v1::CompileResult changed = CompileOne(*client, BlockKernel(256, "old-fk"));
  REQUIRE(changed.has_alias_conflict());
  CHECK(changed.alias_conflict().components_unknown());
  CHECK(changed.alias_conflict().changes().empty());
  nlohmann::json alias = Json(Cli(daemon, {"explain", "--fast-key", ToHex("old-fk"), "--namespace", "buggy",
                                           "--target", "cpu:x86-64", "--json"}));
  CHECK(alias["alias"]["found"] == true);
  CHECK(alias["alias"]["artifact_key"] == ToHex(changed.artifact().artifact_key()));
  REQUIRE(alias["alias"]["conflicts"].size() == 1);
  CHECK(alias["alias"]["conflicts"][0]["previous_artifact_key"] == ToHex(key));
}

TEST_CASE("dependency manifests: a changed dependency makes the alias stale, and a recompile rebinds it",
          "[integration][fast-key]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  daemon.Start();
  auto client = daemon.Connect();
  const std::string source = dir.path() + "/kernel.py";
  std::ofstream(source) << "BLOCK = 128\n";
  v1::KernelDescriptor d = BlockKernel(128, "deps-fk");
  Expected<v1::Dependency> dep = client::FileDependency(source);
  REQUIRE(dep.ok());
  *d.add_dependencies() = *dep;
  const v1::CompileResult first = CompileOne(*client, d);
  REQUIRE(first.status() == v1::CACHE_STATUS_COMPILED);

  v1::CompileResult hit = LookupOne(*client, d);
  REQUIRE(hit.status() == v1::CACHE_STATUS_ALIAS_HIT);
  REQUIRE(hit.dependencies_size() == 1);
  CHECK(hit.dependencies(0).name() == source);
  CHECK(hit.dependencies(0).digest() == dep->digest());
  CHECK_FALSE(client::DropIfStale(&hit, client::FileUnchanged));
  RunResult fresh = Cli(daemon, {"lookup", "--fast-key-text", "deps-fk", "--namespace", "buggy", "--target",
                                 "cpu:x86-64", "--check-deps", "-o", dir.path() + "/a.so"});
  CHECK(fresh.exit_code == 0);

  std::ofstream(source) << "BLOCK = 256\n";
  v1::CompileResult stale = LookupOne(*client, d);
  CHECK(client::DropIfStale(&stale, client::FileUnchanged));
  CHECK(stale.status() == v1::CACHE_STATUS_MISS);
  CHECK_FALSE(stale.has_artifact());
  RunResult cli_stale = Cli(daemon, {"lookup", "--fast-key-text", "deps-fk", "--namespace", "buggy", "--target",
                                     "cpu:x86-64", "--check-deps", "-o", dir.path() + "/b.so"});
  CHECK(cli_stale.exit_code == 3);
  CHECK_FALSE(std::filesystem::exists(dir.path() + "/b.so"));

  // The frontend recompiles with the new value and the new digest: no
  // conflict (the dependencies explain the change), counted as stale.
  v1::KernelDescriptor rebuilt = BlockKernel(256, "deps-fk");
  *rebuilt.add_dependencies() = *client::FileDependency(source);
  const v1::CompileResult second = CompileOne(*client, rebuilt);
  CHECK(second.status() == v1::CACHE_STATUS_COMPILED);
  CHECK_FALSE(second.has_alias_conflict());
  const v1::Stats stats = StatsOf(daemon);
  CHECK(stats.alias_stale() == 1);
  CHECK(stats.alias_conflicts() == 0);
  v1::CompileResult rebound = LookupOne(*client, d);
  CHECK(rebound.artifact().artifact_key() == second.artifact().artifact_key());
  CHECK_FALSE(client::DropIfStale(&rebound, client::FileUnchanged));

  // Bad dependencies are refused with the reason, and nothing is stored.
  v1::KernelDescriptor twice = BlockKernel(512, "deps-fk");
  *twice.add_dependencies() = *dep;
  *twice.add_dependencies() = *dep;
  const v1::CompileResult refused = CompileOne(*client, twice);
  CHECK(refused.status() == v1::CACHE_STATUS_ERROR);
  CHECK(refused.error().message().find("named twice") != std::string::npos);
}
