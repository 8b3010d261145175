// The transport-free cores of Export and Import (daemon/bundle_export.h,
// daemon/bundle_import.h) over a real store with a fake clock.
#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <filesystem>
#include <set>

#include "common/digest.h"
#include "engine/bundle_export.h"
#include "engine/bundle_import.h"
#include "bundle/entry_signature.h"

using namespace qdcache;
using namespace qdcache::engine;

namespace {

constexpr const char* kToolchain = "toolchain-1";

struct StoreFixture {
  StoreFixture() {
    const char* tmp = std::getenv("TMPDIR");
    std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/qdcache-bundle-core-XXXXXX";
    REQUIRE(::mkdtemp(templ.data()) != nullptr);
    dir = templ;
    store::StoreOptions options;
    options.path = dir + "/store";
    options.clock = [this] {
      return std::chrono::system_clock::time_point(std::chrono::milliseconds(now_ms.load()));
    };
    auto opened = store::ArtifactStore::Open(options);
    REQUIRE(opened.ok());
    s = std::move(opened).value();
  }
  ~StoreFixture() {
    s.reset();
    std::filesystem::remove_all(dir);
  }

  std::string dir;
  std::atomic<std::int64_t> now_ms{1'700'000'000'000};
  std::unique_ptr<store::ArtifactStore> s;
};

store::ArtifactRecord Record(const std::string& seed, const std::string& toolchain = kToolchain) {
  store::ArtifactRecord r;
  r.key = DigestBytes(Sha256(seed));
  r.kind = 2;
  r.target = "cpu:x86-64";
  r.toolchain = toolchain;
  r.payload = "payload of " + seed;
  return r;
}

store::AliasKey Alias(const std::string& tenant, const std::string& ns,
                      const std::string& fast_key) {
  return store::AliasKey{tenant, ns, "cpu:x86-64", fast_key};
}

std::vector<v1::BundleEntry> ExportAll(store::ArtifactStore& s, ExportScope scope,
                                       std::size_t target = 1 << 20, std::size_t max = 1 << 20,
                                       std::uint64_t* too_large = nullptr, int* chunks = nullptr) {
  auto snapshot = s.OpenSnapshot({scope.tenant, scope.ns});
  REQUIRE(snapshot.ok());
  BundleExporter exporter(std::move(snapshot).value(), scope);
  std::vector<v1::BundleEntry> out;
  for (bool more = true; more;) {
    v1::ExportChunk chunk;
    Expected<bool> filled = exporter.Fill(&chunk, target, max);
    REQUIRE(filled.ok());
    more = *filled;
    if (chunks && chunk.entries_size() > 0) ++*chunks;
    if (too_large) *too_large += chunk.skipped_too_large();
    for (const v1::BundleEntry& e : chunk.entries()) out.push_back(e);
  }
  return out;
}

std::set<std::string> FastKeys(const std::vector<v1::BundleEntry>& entries) {
  std::set<std::string> out;
  for (const auto& e : entries) {
    if (e.has_alias()) out.insert(e.alias().fast_key());
  }
  return out;
}

std::size_t Artifacts(const std::vector<v1::BundleEntry>& entries) {
  return static_cast<std::size_t>(std::count_if(entries.begin(), entries.end(),
                                                [](const auto& e) { return e.has_artifact(); }));
}

}  // namespace

TEST_CASE("export without a namespace: every artifact, then the tenant's aliases to them",
          "[daemon][bundle]") {
  StoreFixture f;
  REQUIRE(f.s->Put(Record("a"), Alias("uid:1", "ns", "ka")).ok());
  REQUIRE(f.s->Put(Record("b"), Alias("uid:2", "ns", "kb")).ok());
  REQUIRE(f.s->Put(Record("c")).ok());
  REQUIRE(f.s->PutAlias(Alias("uid:1", "ns", "dangling"), DigestBytes(Sha256("gone"))).ok());
  std::vector<v1::BundleEntry> entries = ExportAll(*f.s, {"uid:1", std::nullopt, 0});
  CHECK(Artifacts(entries) == 3);
  CHECK(FastKeys(entries) == std::set<std::string>{"ka"});
  CHECK(entries.back().has_alias());  // aliases after artifacts
  CHECK(FastKeys(ExportAll(*f.s, {std::nullopt, std::nullopt, 0})) ==
        std::set<std::string>{"ka", "kb"});
}

TEST_CASE("export of a namespace: its aliases, each after its artifact, each artifact once",
          "[daemon][bundle]") {
  StoreFixture f;
  REQUIRE(f.s->Put(Record("a"), Alias("uid:1", "ns", "k1")).ok());
  REQUIRE(f.s->PutAlias(Alias("uid:1", "ns", "k2"), Record("a").key).ok());
  REQUIRE(f.s->Put(Record("b"), Alias("uid:1", "other", "k3")).ok());
  std::vector<v1::BundleEntry> entries = ExportAll(*f.s, {"uid:1", "ns", 0});
  REQUIRE(entries.size() == 3);
  CHECK(entries[0].has_artifact());
  CHECK(entries[0].artifact().artifact_key() == Record("a").key);
  CHECK(entries[0].artifact().payload() == Record("a").payload);
  CHECK(entries[0].artifact().payload_digest() == DigestBytes(Sha256(Record("a").payload)));
  CHECK(FastKeys(entries) == std::set<std::string>{"k1", "k2"});
}

TEST_CASE("export since a moment: only entries used or created since, and aliases to them",
          "[daemon][bundle]") {
  StoreFixture f;
  REQUIRE(f.s->Put(Record("old"), Alias("uid:1", "ns", "k-old")).ok());
  REQUIRE(f.s->Put(Record("used"), Alias("uid:1", "ns", "k-used")).ok());
  f.now_ms += 3'600'000;
  const std::uint64_t since = static_cast<std::uint64_t>(f.now_ms.load());
  REQUIRE(f.s->Put(Record("new"), Alias("uid:1", "ns", "k-new")).ok());
  REQUIRE(f.s->Get(Record("used").key).ok());  // an access counts as use
  for (std::optional<std::string> ns :
       {std::optional<std::string>(), std::optional<std::string>("ns")}) {
    std::vector<v1::BundleEntry> entries = ExportAll(*f.s, {"uid:1", ns, since});
    CHECK(Artifacts(entries) == 2);
    CHECK(FastKeys(entries) == std::set<std::string>{"k-new", "k-used"});
  }
}

TEST_CASE("export fills chunks up to their target and leaves out an entry too large for a message",
          "[daemon][bundle]") {
  StoreFixture f;
  for (int i = 0; i < 10; ++i) REQUIRE(f.s->Put(Record("r" + std::to_string(i))).ok());
  store::ArtifactRecord big = Record("big");
  big.payload.assign(5000, 'x');
  REQUIRE(f.s->Put(big).ok());
  int chunks = 0;
  std::uint64_t too_large = 0;
  std::vector<v1::BundleEntry> entries =
      ExportAll(*f.s, {"uid:1", std::nullopt, 0}, 300, 2000, &too_large, &chunks);
  CHECK(entries.size() == 10);
  CHECK(too_large == 1);
  CHECK(chunks >= 4);
}

TEST_CASE("import stores verified entries under the caller's tenant, idempotently",
          "[daemon][bundle]") {
  StoreFixture source, target;
  REQUIRE(source.s->Put(Record("a"), Alias("uid:1", "ns", "ka")).ok());
  std::vector<v1::BundleEntry> entries = ExportAll(*source.s, {"uid:1", std::nullopt, 0});
  for (int round = 0; round < 2; ++round) {
    BundleImporter importer(*target.s, {"token:ci", false, kToolchain, {}, {}});
    for (const auto& e : entries) REQUIRE(importer.Add(e).ok());
    CHECK(importer.response().artifacts() == 1);
    CHECK(importer.response().aliases() == 1);
    CHECK(importer.response().rejected() == 0);
  }
  CHECK(target.s->Stats().artifacts == 1);
  CHECK(target.s->Stats().aliases == 1);
  auto key = target.s->GetAlias(Alias("token:ci", "ns", "ka"));
  REQUIRE(key.ok());
  CHECK(*key == Record("a").key);
  auto got = target.s->Get(Record("a").key);
  REQUIRE(got.ok());
  REQUIRE(got->has_value());
  CHECK((*got)->payload == Record("a").payload);
}

TEST_CASE(
    "import with keep_tenants keeps each alias's tenant, and refuses a tenant of no known form",
    "[daemon][bundle]") {
  StoreFixture source, target;
  REQUIRE(source.s->Put(Record("a"), Alias("uid:7", "ns", "ka")).ok());
  REQUIRE(source.s->PutAlias(Alias("weird", "ns", "kw"), Record("a").key).ok());
  BundleImporter importer(*target.s, {"uid:0", true, kToolchain, {}, {}});
  for (const auto& e : ExportAll(*source.s, {std::nullopt, std::nullopt, 0}))
    REQUIRE(importer.Add(e).ok());
  CHECK(importer.response().aliases() == 1);
  CHECK(importer.response().rejected() == 1);
  CHECK(target.s->GetAlias(Alias("uid:7", "ns", "ka"))->has_value());
  CHECK_FALSE(target.s->GetAlias(Alias("uid:0", "ns", "ka"))->has_value());
}

TEST_CASE("import refuses an artifact whose payload does not match its digest, and aliases to it",
          "[daemon][bundle]") {
  StoreFixture source, target;
  REQUIRE(source.s->Put(Record("a"), Alias("uid:1", "ns", "ka")).ok());
  REQUIRE(source.s->Put(Record("b"), Alias("uid:1", "ns", "kb")).ok());
  std::vector<v1::BundleEntry> entries = ExportAll(*source.s, {"uid:1", std::nullopt, 0});
  for (auto& e : entries) {
    if (e.has_artifact() && e.artifact().artifact_key() == Record("a").key) {
      e.mutable_artifact()->mutable_payload()->back() ^= 1;
    }
  }
  BundleImporter importer(*target.s, {"uid:1", false, kToolchain, {}, {}});
  for (const auto& e : entries) REQUIRE(importer.Add(e).ok());
  CHECK(importer.response().artifacts() == 1);
  CHECK(importer.response().aliases() == 1);
  CHECK(importer.response().rejected() == 2);
  REQUIRE(importer.response().rejections_size() == 2);
  CHECK_THAT(importer.response().rejections(0), Catch::Contains("digest"));
  CHECK_FALSE(target.s->Get(Record("a").key)->has_value());
  CHECK_FALSE(target.s->GetAlias(Alias("uid:1", "ns", "ka"))->has_value());
}

TEST_CASE("import refuses malformed artifacts: key size, unknown kind, empty payload",
          "[daemon][bundle]") {
  StoreFixture f;
  BundleImporter importer(*f.s, {"uid:1", false, kToolchain, {}, {}});
  v1::BundleEntry good;
  v1::BundleArtifact* a = good.mutable_artifact();
  a->set_artifact_key(Record("a").key);
  a->set_kind(v1::ARTIFACT_KIND_SHARED_OBJECT);
  a->set_target("cpu:x86-64");
  a->set_toolchain(kToolchain);
  a->set_payload("bytes");
  a->set_payload_digest(DigestBytes(Sha256("bytes")));
  v1::BundleEntry short_key = good, unknown_kind = good, empty = good;
  short_key.mutable_artifact()->set_artifact_key("short");
  unknown_kind.mutable_artifact()->set_kind(static_cast<v1::ArtifactKind>(9));
  empty.mutable_artifact()->clear_payload();
  for (const auto* e : {&short_key, &unknown_kind, &empty, &good}) REQUIRE(importer.Add(*e).ok());
  CHECK(importer.response().rejected() == 3);
  CHECK(importer.response().artifacts() == 1);
}

TEST_CASE("import skips artifacts of another toolchain as stale, with their aliases",
          "[daemon][bundle]") {
  StoreFixture source, target;
  REQUIRE(source.s->Put(Record("a", "older-toolchain"), Alias("uid:1", "ns", "ka")).ok());
  REQUIRE(target.s->Put(Record("current"), Alias("uid:1", "ns", "ka")).ok());
  BundleImporter importer(*target.s, {"uid:1", false, kToolchain, {}, {}});
  for (const auto& e : ExportAll(*source.s, {"uid:1", std::nullopt, 0}))
    REQUIRE(importer.Add(e).ok());
  CHECK(importer.response().stale() == 2);
  CHECK(importer.response().artifacts() == 0);
  CHECK(importer.response().rejected() == 0);
  // The good alias already there is not replaced by one to nothing.
  CHECK(*target.s->GetAlias(Alias("uid:1", "ns", "ka")) == Record("current").key);
}

namespace {

signing::SignaturePolicy TrustOnly(const signing::SigningKey& key) {
  Expected<signing::TrustedKeys> keys = signing::TrustedKeys::Parse(key.PublicPem(), "test");
  REQUIRE(keys.ok());
  return {std::make_shared<const signing::TrustedKeys>(std::move(keys).value()), true};
}

}  // namespace

TEST_CASE("with trusted keys, import stores entries signed by them (as export --sign signs) and counts the rest "
          "as untrusted",
          "[daemon][bundle][signing]") {
  StoreFixture source, target;
  REQUIRE(source.s->Put(Record("a"), Alias("uid:1", "ns", "ka")).ok());
  REQUIRE(source.s->Put(Record("b"), Alias("uid:1", "ns", "kb")).ok());
  REQUIRE(source.s->Put(Record("c"), Alias("uid:1", "ns", "kc")).ok());
  const Expected<signing::SigningKey> writer = signing::SigningKey::Generate();
  const Expected<signing::SigningKey> stranger = signing::SigningKey::Generate();
  REQUIRE(writer.ok());
  REQUIRE(stranger.ok());
  std::vector<v1::BundleEntry> entries = ExportAll(*source.s, {"uid:1", std::nullopt, 0});
  for (v1::BundleEntry& e : entries) {
    const std::string& key = e.has_artifact() ? e.artifact().artifact_key() : e.alias().artifact_key();
    if (key == Record("a").key) bundle::SignEntry(*writer, &e);    // stored
    if (key == Record("b").key) bundle::SignEntry(*stranger, &e);  // untrusted, alias too
    // c: unsigned, untrusted
  }
  // Imported under another tenant: the alias's claim is the one it was exported with.
  BundleImporter importer(*target.s, {"token:ci", false, kToolchain, {}, TrustOnly(*writer)});
  for (const auto& e : entries) REQUIRE(importer.Add(e).ok());
  CHECK(importer.response().artifacts() == 1);
  CHECK(importer.response().aliases() == 1);
  CHECK(importer.response().untrusted() == 4);
  CHECK(importer.response().rejected() == 0);
  CHECK(target.s->Get(Record("a").key)->has_value());
  CHECK(*target.s->GetAlias(Alias("token:ci", "ns", "ka")) == Record("a").key);
  CHECK_FALSE(target.s->Get(Record("b").key)->has_value());
  CHECK_FALSE(target.s->Get(Record("c").key)->has_value());
  CHECK_FALSE(target.s->GetAlias(Alias("token:ci", "ns", "kb"))->has_value());
  REQUIRE(importer.response().rejections_size() == 4);
  std::string reasons;
  for (const std::string& r : importer.response().rejections()) reasons += r + "\n";
  CHECK_THAT(reasons, Catch::Contains("untrusted: signed by ed25519:") && Catch::Contains("not a trusted key") &&
                          Catch::Contains("untrusted: unsigned, and signatures are required"));

  // A signed alias re-pointed at another artifact, and a signed artifact
  // with another payload: the signatures no longer cover them.
  std::vector<v1::BundleEntry> tampered = ExportAll(*source.s, {"uid:1", std::nullopt, 0});
  for (v1::BundleEntry& e : tampered) {
    bundle::SignEntry(*writer, &e);
    if (e.has_alias() && e.alias().fast_key() == "kb") e.mutable_alias()->set_artifact_key(Record("c").key);
    if (e.has_artifact() && e.artifact().artifact_key() == Record("c").key) {
      e.mutable_artifact()->set_payload("other bytes");
      e.mutable_artifact()->set_payload_digest(DigestBytes(Sha256("other bytes")));
    }
  }
  StoreFixture second;
  BundleImporter strict(*second.s, {"uid:1", true, kToolchain, {}, TrustOnly(*writer)});
  for (const auto& e : tampered) REQUIRE(strict.Add(e).ok());
  CHECK(strict.response().artifacts() == 2);  // a and b
  CHECK(strict.response().aliases() == 1);    // ka
  CHECK(strict.response().untrusted() == 3);  // c, kb (re-pointed), kc (names c)
  CHECK_FALSE(second.s->Get(Record("c").key)->has_value());
}
