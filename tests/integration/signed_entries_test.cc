// Signed shared entries through real daemons, a real Redis and the real CLI:
// a trusted writer's entries are served; values written straight into Redis
// (unsigned, signed by a key nobody trusts, or a signed value copied under
// another key) and bundles whose signatures are missing, foreign or broken
// are never served or stored by a daemon with trusted keys. The forged values
// are what an attacker with write access to Redis can make: valid envelopes
// and payload digests under real artifact and alias keys (remote_codec.h).
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "bundle/bundle_io.h"
#include "bundle/bundle_reader.h"
#include "bundle/bundle_writer.h"
#include "common/digest.h"
#include "remote/remote_codec.h"
#include "signing/signing_key.h"
#include "tests/support/daemon_process.h"
#include "tests/support/kernels.h"
#include "tests/support/redis_server.h"
#include "tests/support/redis_skip.h"
#include "tests/support/stampede.h"
#include "tests/support/subprocess.h"

using namespace qdcache;
using namespace qdcache::testing;

namespace signed_entries {

constexpr const char* kPrefix = "signed:";

std::string SubDir(const std::string& parent, const std::string& name, mode_t mode = 0700) {
  const std::string path = parent + "/" + name;
  REQUIRE(::mkdir(path.c_str(), mode) == 0);
  REQUIRE(::chmod(path.c_str(), mode) == 0);  // whatever the umask
  return path;
}

v1::KernelDescriptor Kernel(int n) { return StampedeKernel(n, /*salt=*/9); }

store::AliasKey AliasOf(int n, const std::string& target) {
  const v1::KernelDescriptor d = Kernel(n);
  return {"uid:" + std::to_string(::geteuid()), d.namespace_(), target, d.fast_key()};
}

// `qdcache keygen PATH`: the key pair and the key's id.
std::string Keygen(const std::string& path) {
  const RunResult r = Run({CliBinary(), "keygen", path, "--json"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(r.out)["id"].get<std::string>();
}

class Redis {
 public:
  explicit Redis(const std::string& dir) : server_(dir) { server_.Start(); }
  std::string Url() const { return "redis://" + server_.endpoint().ToString() + "/" + kPrefix; }
  std::string Get(const std::string& key) const {
    const remote::Reply r = server_.Command({"GET", key});
    REQUIRE(r.type == remote::Reply::Type::kString);
    return r.str;
  }
  void Set(const std::string& key, const std::string& value) const {
    REQUIRE_FALSE(server_.Command({"SET", key, value}).is_error());
  }
  long long Size() const { return server_.Command({"DBSIZE"}).integer; }

 private:
  RedisServer server_;
};

// An attacker's artifact: the genuine record of `genuine_value` with one
// payload byte changed and its digest recomputed, so that every check but
// the signature passes. Signed by `signer` when given.
std::string ForgedArtifact(const std::string& genuine_value, const std::string& key,
                           const signing::SigningKey* signer) {
  store::ArtifactRecord record;
  REQUIRE(remote::DecodeArtifactValue(genuine_value, key, 1 << 30, &record).ok());
  record.payload.back() = static_cast<char>(record.payload.back() ^ 0x5a);
  record.payload_digest = DigestBytes(Sha256(record.payload));
  return remote::EncodeArtifactValue(record, signer);
}

TEST_CASE("entries written straight into Redis, signed by an untrusted key or copied under another key are "
          "never served by a daemon with trusted keys",
          "[integration][remote][signing]") {
  if (SkipWithoutRedis("signed shared entries")) return;
  TempDir tmp;
  const std::string dir = tmp.path();
  Redis redis(SubDir(dir, "redis"));
  const std::string keys = SubDir(dir, "keys");
  const std::string writer_id = Keygen(keys + "/writer.pem");
  const std::string trusted = SubDir(dir, "trusted", 0755);
  std::filesystem::copy_file(keys + "/writer.pem.pub", trusted + "/writer.pub");
  const auto remote = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {"--remote", redis.Url(), "--workers", "1"};
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  };

  // The one trusted writer signs; it checks nothing itself, and says so.
  DaemonProcess writer(SubDir(dir, "writer"), remote({"--remote-signing-key", keys + "/writer.pem"}));
  writer.Start();
  std::map<int, v1::CompileResult> genuine;
  for (int n = 1; n <= 5; ++n) {
    genuine[n] = CompileOne(*writer.Connect(), Kernel(n));
    REQUIRE(genuine[n].status() == v1::CACHE_STATUS_COMPILED);
  }
  CHECK(redis.Size() == 10);
  const v1::Stats w = StatsOf(writer);
  CHECK(w.signing_key() == writer_id);
  CHECK(w.trusted_keys_size() == 0);
  CHECK_THAT(ReadFileOrDie(writer.log_path()), Catch::Contains("shared entries are unauthenticated"));

  // A read-only reader verifies and serves the writer's entries, and writes nothing.
  DaemonProcess reader(SubDir(dir, "reader"), remote({"--remote-read-only", "--remote-trusted-keys", trusted}));
  reader.Start();
  CHECK(LookupOne(reader, Kernel(1)).status() == v1::CACHE_STATUS_ALIAS_HIT);
  const v1::CompileResult hit = CompileOne(*reader.Connect(), Kernel(1));
  CHECK(hit.status() == v1::CACHE_STATUS_HIT);
  CHECK(hit.artifact().payload() == genuine[1].artifact().payload());
  const v1::Stats r = StatsOf(reader);
  CHECK(r.remote_untrusted() == 0);
  CHECK(r.remote_writes() == 0);
  CHECK(r.compiles() == 0);
  CHECK(r.trusted_keys_size() == 1);
  CHECK(r.signatures_required());

  // The attacker writes to Redis: kernel 2 unsigned, kernel 3 signed by a key
  // of its own, kernel 5 with kernel 4's genuinely signed values.
  const Expected<signing::SigningKey> attacker = signing::SigningKey::Generate();
  REQUIRE(attacker.ok());
  const std::string target = genuine[1].artifact().target();
  const auto artifact_key = [&](int n) {
    return remote::ArtifactRedisKey(kPrefix, genuine[n].artifact().artifact_key());
  };
  const auto alias_key = [&](int n) { return remote::AliasRedisKey(kPrefix, AliasOf(n, target)); };
  REQUIRE(redis.Get(alias_key(2)).size() > 0);  // the alias key is the real one
  for (const auto& [n, signer] : {std::pair<int, const signing::SigningKey*>{2, nullptr}, {3, &*attacker}}) {
    const std::string& key = genuine[n].artifact().artifact_key();
    redis.Set(artifact_key(n), ForgedArtifact(redis.Get(artifact_key(n)), key, signer));
    redis.Set(alias_key(n), remote::EncodeAliasValue(AliasOf(n, target), store::AliasValue{key, {}}, signer));
  }
  redis.Set(artifact_key(5), redis.Get(artifact_key(4)));
  redis.Set(alias_key(5), redis.Get(alias_key(4)));

  // A reader that does not require signatures (moving a fleet to them) takes
  // the unsigned forgery, and still refuses the foreign signature.
  DaemonProcess lenient(SubDir(dir, "lenient"), remote({"--remote-read-only", "--remote-trusted-keys", trusted,
                                                        "--remote-require-signatures=false"}));
  lenient.Start();
  const v1::CompileResult unsigned_hit = CompileOne(*lenient.Connect(), Kernel(2));
  CHECK(unsigned_hit.status() == v1::CACHE_STATUS_HIT);
  CHECK(unsigned_hit.artifact().payload() != genuine[2].artifact().payload());
  CHECK(CompileOne(*lenient.Connect(), Kernel(3)).status() == v1::CACHE_STATUS_COMPILED);
  CHECK(StatsOf(lenient).remote_untrusted() >= 1);
  CHECK_FALSE(StatsOf(lenient).signatures_required());

  // The victim requires signatures: every forged entry is a counted miss, the
  // client gets a fresh compile of the genuine bytes, and the local store
  // holds only what it compiled.
  DaemonProcess victim(SubDir(dir, "victim"), remote({"--remote-trusted-keys", trusted}));
  victim.Start();
  for (int n : {2, 3, 5}) {
    INFO("kernel " << n);
    CHECK(LookupOne(victim, Kernel(n)).status() == v1::CACHE_STATUS_MISS);
    const v1::CompileResult fresh = CompileOne(*victim.Connect(), Kernel(n));
    CHECK(fresh.status() == v1::CACHE_STATUS_COMPILED);
    CHECK(fresh.artifact().payload() == genuine[n].artifact().payload());
    const v1::CompileResult kept = CompileOne(*victim.Connect(), Kernel(n));
    CHECK(kept.status() == v1::CACHE_STATUS_HIT);
    CHECK(kept.artifact().payload() == genuine[n].artifact().payload());
  }
  const v1::Stats v = StatsOf(victim);
  CHECK(v.compiles() == 3);
  CHECK(v.remote_untrusted() >= 6);  // three aliases and three artifacts (the compile leader reads again)
  CHECK(v.remote_hits() == 0);
  CHECK(v.remote_corrupt() == 0);
  CHECK(v.store_artifacts() == 3);
  const std::string log = ReadFileOrDie(victim.log_path());
  // The first refusal is logged with its reason (the rest are throttled).
  CHECK_THAT(log, Catch::Contains("refused, untrusted: unsigned, and signatures are required"));
  const RunResult text = Run({CliBinary(), "--socket", victim.socket_path(), "stats"});
  REQUIRE(text.exit_code == 0);
  CHECK_THAT(text.out, Catch::Contains("signed entries") && Catch::Contains(writer_id) &&
                           Catch::Contains("unsigned entries") && Catch::Contains("refused"));
}

// Rewrites bundle `in` into `out`, letting `edit` change each entry.
void RewriteBundle(const std::string& in, const std::string& out,
                   const std::function<void(v1::BundleEntry&)>& edit) {
  const std::string bytes = ReadFileOrDie(in);
  auto reader = bundle::BundleReader::Open(bundle::StringSource(bytes));
  REQUIRE(reader.ok());
  std::string written;
  auto writer = bundle::BundleWriter::Create(bundle::StringSink(&written));
  REQUIRE(writer.ok());
  for (;;) {
    Expected<std::optional<v1::BundleEntry>> next = (*reader)->Next();
    REQUIRE(next.ok());
    if (!next->has_value()) break;
    edit(**next);
    REQUIRE((*writer)->Add(**next).ok());
  }
  REQUIRE((*writer)->Finish().ok());
  WriteFileOrDie(out, written);
}

TEST_CASE("a daemon with trusted keys imports only bundle entries signed by them, and lets role write import",
          "[integration][bundle][signing]") {
  TempDir tmp;
  const std::string dir = tmp.path();
  const std::string keys = SubDir(dir, "keys");
  Keygen(keys + "/writer.pem");
  Keygen(keys + "/stranger.pem");
  const std::string trusted = SubDir(dir, "trusted", 0755);
  std::filesystem::copy_file(keys + "/writer.pem.pub", trusted + "/writer.pem");

  DaemonProcess source(SubDir(dir, "source"));
  source.Start();
  std::vector<v1::CompileResult> compiled;
  for (int n = 1; n <= 2; ++n) compiled.push_back(CompileOne(*source.Connect(), Kernel(n)));
  const auto export_to = [&](const std::string& file, std::vector<std::string> extra) {
    std::vector<std::string> args = {CliBinary(), "--socket", source.socket_path(), "export", "--out", file, "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    const RunResult r = Run(args);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    return nlohmann::json::parse(r.out);
  };
  CHECK(export_to(dir + "/signed.qdcb", {"--sign", keys + "/writer.pem"})["signed_by"] ==
        signing::SigningKey::Load(keys + "/writer.pem")->id());
  export_to(dir + "/plain.qdcb", {});
  export_to(dir + "/stranger.qdcb", {"--sign", keys + "/stranger.pem"});
  // A signed bundle with kernel 1's payload changed (digest recomputed), and
  // one whose signatures were moved onto other entries.
  RewriteBundle(dir + "/signed.qdcb", dir + "/tampered.qdcb", [&](v1::BundleEntry& e) {
    if (!e.has_artifact() || e.artifact().artifact_key() != compiled[0].artifact().artifact_key()) return;
    std::string payload = e.artifact().payload();
    payload.back() = static_cast<char>(payload.back() ^ 1);
    e.mutable_artifact()->set_payload_digest(DigestBytes(Sha256(payload)));
    e.mutable_artifact()->set_payload(payload);
  });
  std::vector<v1::EntrySignature> signatures;
  RewriteBundle(dir + "/signed.qdcb", dir + "/unused.qdcb", [&](v1::BundleEntry& e) { signatures.push_back(e.signature()); });
  std::size_t next_signature = 1;
  RewriteBundle(dir + "/signed.qdcb", dir + "/shuffled.qdcb", [&](v1::BundleEntry& e) {
    *e.mutable_signature() = signatures[next_signature++ % signatures.size()];
  });

  const std::string tokens = dir + "/tokens";
  WriteFileOrDie(tokens, "ci write ci-token-3c9a1f7e5b2d4068\nviewer read viewer-token-8e1d2c3b4a5f6e7d\n");
  REQUIRE(::chmod(tokens.c_str(), 0600) == 0);
  WriteFileOrDie(dir + "/ci.token", "ci-token-3c9a1f7e5b2d4068\n");
  WriteFileOrDie(dir + "/viewer.token", "viewer-token-8e1d2c3b4a5f6e7d\n");
  DaemonProcess target(SubDir(dir, "target"), {"--listen", "127.0.0.1:0", "--token-file", tokens,
                                               "--remote-trusted-keys", trusted});
  target.Start();
  // `qdcache import` of `file` into the daemon at `address` with `token`.
  const auto import_into = [&](const std::string& address, const std::string& token, const std::string& file,
                               const std::string& flag) {
    return Run({CliBinary(), "--addr", address, "--token-file", dir + "/" + token, "import", dir + "/" + file, flag});
  };
  const auto import = [&](const std::string& token, const std::string& file) {
    return import_into(target.TcpAddress(), token, file, "--json");
  };

  const RunResult viewer = import("viewer.token", "signed.qdcb");
  CHECK(viewer.exit_code == 1);
  CHECK_THAT(viewer.err, Catch::Contains("needs role write"));
  // A writer imports into its own tenant only.
  const RunResult elsewhere = import_into(target.TcpAddress(), "ci.token", "signed.qdcb", "--keep-tenants");
  CHECK(elsewhere.exit_code == 1);
  CHECK_THAT(elsewhere.err, Catch::Contains("PERMISSION_DENIED") && Catch::Contains("keep_tenants needs role admin"));
  {
    // A daemon that accepts unsigned entries would store anything: import is an admin's there.
    DaemonProcess lenient(SubDir(dir, "lenient"), {"--listen", "127.0.0.1:0", "--token-file", tokens,
                                                   "--remote-trusted-keys", trusted,
                                                   "--remote-require-signatures=false"});
    lenient.Start();
    const RunResult refused = import_into(lenient.TcpAddress(), "ci.token", "signed.qdcb", "--json");
    CHECK(refused.exit_code == 1);
    CHECK_THAT(refused.err, Catch::Contains("Import needs role admin"));
  }
  for (const char* file : {"plain.qdcb", "stranger.qdcb", "shuffled.qdcb"}) {
    INFO(file);
    const RunResult r = import("ci.token", file);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const nlohmann::json j = nlohmann::json::parse(r.out);
    CHECK(j["artifacts"] == 0);
    CHECK(j["aliases"] == 0);
    CHECK(j["untrusted"] == 4);
    CHECK(j["refused"] == 0);
  }
  CHECK(StatsOf(target).store_artifacts() == 0);

  const RunResult tampered = import("ci.token", "tampered.qdcb");
  REQUIRE(tampered.exit_code == 0);
  const nlohmann::json t = nlohmann::json::parse(tampered.out);
  CHECK(t["artifacts"] == 1);  // kernel 2's
  CHECK(t["aliases"] == 1);
  CHECK(t["untrusted"] == 2);  // kernel 1's artifact and the alias naming it
  CHECK_THAT(t["problems"].dump(), Catch::Contains("does not cover this key and content"));

  const RunResult good = import("ci.token", "signed.qdcb");
  INFO(good.err);
  REQUIRE(good.exit_code == 0);
  const nlohmann::json g = nlohmann::json::parse(good.out);
  CHECK(g["artifacts"] == 2);
  CHECK(g["aliases"] == 2);
  CHECK(g["untrusted"] == 0);
  // What the target serves is the genuine artifact, never the tampered one.
  const v1::CompileResult served = CompileOne(*target.Connect(), Kernel(1));
  CHECK(served.status() == v1::CACHE_STATUS_HIT);
  CHECK(served.artifact().payload() == compiled[0].artifact().payload());
  CHECK(StatsOf(target).compiles() == 0);
}

}  // namespace signed_entries
