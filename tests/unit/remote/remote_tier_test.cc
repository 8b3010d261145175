// The remote tier and TieredStore over the in-memory backend (a test double
// that keeps the backend contract; the real Redis backends are exercised by
// tests/integration/remote_*).
#include <catch2/catch.hpp>

#include "common/digest.h"
#include "remote/remote_codec.h"
#include "remote/remote_tier.h"
#include "remote/tiered_store.h"
#include "tests/unit/remote/memory_backend.h"
#include "tests/unit/store/store_test_util.h"

using namespace qdcache;
using namespace qdcache::remote;
using namespace std::chrono_literals;
using qdcache::remote::testing::MemoryBackend;

namespace {

struct Fixture {
  explicit Fixture(bool read_only = false, std::chrono::seconds ttl = 0s) {
    auto owned = std::make_unique<MemoryBackend>();
    backend = owned.get();
    RemoteOptions o;
    o.read_only = read_only;
    o.ttl = ttl;
    o.breaker.failure_threshold = 2;
    o.breaker.backoff = 1s;
    tier = std::make_unique<RemoteTier>(std::move(o), std::move(owned), [this] { return now; });
  }
  MemoryBackend* backend;
  std::chrono::steady_clock::time_point now{};
  std::unique_ptr<RemoteTier> tier;
};

store::ArtifactRecord TierRecord(const std::string& seed) {
  store::ArtifactRecord r;
  r.key = DigestBytes(Sha256(seed));
  r.kind = 2;
  r.target = "cpu:x86-64";
  r.toolchain = "t";
  r.payload = "payload " + seed;
  r.payload_digest = DigestBytes(Sha256(r.payload));
  r.created_unix_ms = 5;
  return r;
}

const store::AliasKey kTierAlias{"uid:1", "ns", "cpu:x86-64", "fk"};

}  // namespace

TEST_CASE("what one tier writes, the tier reads back and counts", "[remote][tier]") {
  Fixture f;
  const store::ArtifactRecord r = TierRecord("a");
  REQUIRE(f.tier->PutArtifact(r).ok());
  REQUIRE(f.tier->PutAlias(kTierAlias, {r.key, {}}).ok());
  auto got = f.tier->GetArtifact(r.key);
  REQUIRE(got.ok());
  REQUIRE(got->has_value());
  CHECK((*got)->payload == r.payload);
  auto alias = f.tier->GetAlias(kTierAlias);
  REQUIRE(alias.ok());
  CHECK((*alias)->key == r.key);
  auto missing = f.tier->GetArtifact(TierRecord("b").key);
  REQUIRE(missing.ok());
  CHECK_FALSE(missing->has_value());
  const RemoteStats s = f.tier->Stats();
  CHECK(s.writes == 2);
  CHECK(s.hits == 2);
  CHECK(s.misses == 1);
  CHECK(s.healthy);
}

TEST_CASE("the tier stores the remote_codec keys and envelopes every daemon version reads",
          "[remote][tier]") {
  Fixture f;
  const store::ArtifactRecord r = TierRecord("a");
  REQUIRE(f.tier->PutArtifact(r).ok());
  REQUIRE(f.tier->PutAlias(kTierAlias, {r.key, {}}).ok());
  CHECK(f.backend->size() == 2);
  CHECK(f.backend->Value(ArtifactRedisKey("qdcache:", r.key)) == EncodeArtifactValue(r));
  CHECK(f.backend->Value(AliasRedisKey("qdcache:", kTierAlias)) == EncodeAliasValue(kTierAlias, r.key));
}

TEST_CASE("a corrupt remote value is a counted miss", "[remote][tier]") {
  Fixture f;
  const store::ArtifactRecord r = TierRecord("a");
  f.backend->Set(ArtifactRedisKey("qdcache:", r.key), "garbage");
  f.backend->Set(AliasRedisKey("qdcache:", kTierAlias), EncodeArtifactValue(r));  // wrong kind
  auto got = f.tier->GetArtifact(r.key);
  REQUIRE(got.ok());
  CHECK_FALSE(got->has_value());
  auto alias = f.tier->GetAlias(kTierAlias);
  REQUIRE(alias.ok());
  CHECK_FALSE(alias->has_value());
  CHECK(f.tier->Stats().corrupt == 2);
  CHECK(f.tier->Stats().misses == 2);
  CHECK(f.tier->Stats().healthy);  // the remote answered: not a failure
}

TEST_CASE("a tier with a signer writes signed values, and one with trusted keys counts the rest as untrusted "
          "misses",
          "[remote][tier][signing]") {
  Expected<signing::SigningKey> writer_key = signing::SigningKey::Generate();
  REQUIRE(writer_key.ok());
  auto signer = std::make_shared<const signing::SigningKey>(std::move(writer_key).value());
  Expected<signing::TrustedKeys> trusted = signing::TrustedKeys::Parse(signer->PublicPem(), "test");
  REQUIRE(trusted.ok());
  auto owned = std::make_unique<MemoryBackend>();
  MemoryBackend* backend = owned.get();
  RemoteOptions o;
  o.signer = signer;
  o.signatures = {std::make_shared<const signing::TrustedKeys>(std::move(trusted).value()), true};
  RemoteTier tier(std::move(o), std::move(owned));

  const store::ArtifactRecord signed_record = TierRecord("signed");
  REQUIRE(tier.PutArtifact(signed_record).ok());
  REQUIRE(tier.PutAlias(kTierAlias, {signed_record.key, {}}).ok());
  CHECK(backend->Value(ArtifactRedisKey("qdcache:", signed_record.key)) ==
        EncodeArtifactValue(signed_record, signer.get()));
  REQUIRE(tier.GetArtifact(signed_record.key)->has_value());
  REQUIRE(tier.GetAlias(kTierAlias)->has_value());

  // Written by someone else, unsigned: each read a miss, counted untrusted, not corrupt.
  const store::ArtifactRecord forged = TierRecord("forged");
  const store::AliasKey forged_alias{"uid:1", "ns", "cpu:x86-64", "forged"};
  backend->Set(ArtifactRedisKey("qdcache:", forged.key), EncodeArtifactValue(forged));
  backend->Set(AliasRedisKey("qdcache:", forged_alias), EncodeAliasValue(forged_alias, forged.key));
  CHECK_FALSE(tier.GetArtifact(forged.key)->has_value());
  CHECK_FALSE(tier.GetAlias(forged_alias)->has_value());
  auto batch = tier.GetArtifacts({signed_record.key, forged.key});
  REQUIRE(batch.ok());
  CHECK((*batch)[0].has_value());
  CHECK_FALSE((*batch)[1].has_value());
  const RemoteStats s = tier.Stats();
  CHECK(s.untrusted == 3);
  CHECK(s.corrupt == 0);
  CHECK(s.misses == 3);
  CHECK(s.hits == 3);
  tier.ResetStats();
  CHECK(tier.Stats().untrusted == 0);
}

TEST_CASE("a batch read answers each key in order, verified, in one backend call", "[remote][tier]") {
  Fixture f;
  const store::ArtifactRecord a = TierRecord("a"), c = TierRecord("c");
  REQUIRE(f.tier->PutArtifact(a).ok());
  REQUIRE(f.tier->PutArtifact(c).ok());
  f.backend->Set(ArtifactRedisKey("qdcache:", TierRecord("d").key), EncodeArtifactValue(a));  // foreign
  const int calls = f.backend->calls();
  auto got = f.tier->GetArtifacts({a.key, TierRecord("b").key, c.key, TierRecord("d").key});
  REQUIRE(got.ok());
  CHECK(f.backend->calls() == calls + 1);
  REQUIRE(got->size() == 4);
  REQUIRE((*got)[0].has_value());
  CHECK((*got)[0]->payload == a.payload);
  CHECK_FALSE((*got)[1].has_value());
  REQUIRE((*got)[2].has_value());
  CHECK((*got)[2]->payload == c.payload);
  CHECK_FALSE((*got)[3].has_value());  // a value for another key is corrupt here
  const RemoteStats s = f.tier->Stats();
  CHECK(s.hits == 2);
  CHECK(s.misses == 2);
  CHECK(s.corrupt == 1);

  auto none = f.tier->GetArtifacts({});
  REQUIRE(none.ok());
  CHECK(none->empty());
  CHECK(f.backend->calls() == calls + 1);
}

TEST_CASE("a batch read that fails counts every key, and opens the breaker as any failure does",
          "[remote][tier]") {
  Fixture f;
  f.backend->FailEveryCall(Unavailable("connection refused"));
  const std::vector<store::ArtifactKey> keys = {TierRecord("a").key, TierRecord("b").key};
  CHECK(f.tier->GetArtifacts(keys).status().code() == Code::kUnavailable);
  CHECK(f.tier->GetArtifacts(keys).status().code() == Code::kUnavailable);
  CHECK(f.tier->Stats().errors == 4);
  CHECK_FALSE(f.tier->Stats().healthy);  // threshold 2
  const int calls = f.backend->calls();
  CHECK(f.tier->GetArtifacts(keys).status().code() == Code::kUnavailable);
  CHECK(f.backend->calls() == calls);  // not called
  CHECK(f.tier->Stats().skipped == 2);
}

TEST_CASE("a read-only tier never writes", "[remote][tier]") {
  Fixture f(/*read_only=*/true);
  REQUIRE(f.tier->PutArtifact(TierRecord("a")).ok());
  REQUIRE(f.tier->PutAlias(kTierAlias, {TierRecord("a").key, {}}).ok());
  CHECK(f.backend->calls() == 0);
  CHECK(f.tier->Stats().writes == 0);
}

TEST_CASE("written keys carry the TTL when one is set", "[remote][tier]") {
  Fixture f(false, 3600s);
  REQUIRE(f.tier->PutArtifact(TierRecord("a")).ok());
  REQUIRE(f.tier->PutAlias(kTierAlias, {TierRecord("a").key, {}}).ok());
  CHECK(f.backend->TtlSeconds(ArtifactRedisKey("qdcache:", TierRecord("a").key)) == 3600);
  CHECK(f.backend->TtlSeconds(AliasRedisKey("qdcache:", kTierAlias)) == 3600);
}

TEST_CASE("written keys never expire when no TTL is set", "[remote][tier]") {
  Fixture f;
  REQUIRE(f.tier->PutArtifact(TierRecord("a")).ok());
  CHECK(f.backend->TtlSeconds(ArtifactRedisKey("qdcache:", TierRecord("a").key)) == -1);
}

TEST_CASE("failures open the breaker, and calls are skipped until a probe succeeds", "[remote][tier]") {
  Fixture f;
  f.backend->FailEveryCall(Unavailable("connection refused"));
  const store::ArtifactRecord r = TierRecord("a");
  CHECK_FALSE(f.tier->GetArtifact(r.key).ok());
  CHECK_FALSE(f.tier->PutArtifact(r).ok());
  CHECK_FALSE(f.tier->Stats().healthy);
  const int calls = f.backend->calls();
  CHECK_FALSE(f.tier->GetArtifact(r.key).ok());
  CHECK(f.backend->calls() == calls);  // not called
  RemoteStats s = f.tier->Stats();
  CHECK(s.errors == 1);
  CHECK(s.write_failures == 1);
  CHECK(s.skipped == 1);
  f.backend->FailEveryCall(Status::Ok());
  f.now += 1s;
  REQUIRE(f.tier->GetArtifact(r.key).ok());  // the probe
  CHECK(f.tier->Stats().healthy);
}

TEST_CASE("FAILED_PRECONDITION from the backend leaves the breaker closed, UNAVAILABLE opens it",
          "[remote][tier]") {
  Fixture f;
  const store::ArtifactRecord r = TierRecord("a");
  f.backend->FailEveryCall(FailedPrecondition("OOM command not allowed when used memory > 'maxmemory'."));
  for (int i = 0; i < 5; ++i) CHECK_FALSE(f.tier->PutArtifact(r).ok());
  for (int i = 0; i < 5; ++i) CHECK_FALSE(f.tier->GetArtifact(r.key).ok());
  RemoteStats s = f.tier->Stats();
  CHECK(s.healthy);
  CHECK(s.skipped == 0);
  CHECK(s.write_failures == 5);
  CHECK(s.errors == 5);
  f.backend->FailEveryCall(Unavailable("NOAUTH Authentication required."));
  CHECK_FALSE(f.tier->GetArtifact(r.key).ok());
  CHECK_FALSE(f.tier->GetArtifact(r.key).ok());
  CHECK_FALSE(f.tier->Stats().healthy);  // threshold 2
}

TEST_CASE("a failed start-up probe opens the breaker", "[remote][tier]") {
  Fixture f;
  f.backend->FailEveryCall(Unavailable("connection refused"));
  bool reported = true;
  f.tier->SetHealthListener([&](bool healthy) { reported = healthy; });
  CHECK_FALSE(f.tier->Probe().ok());
  CHECK_FALSE(f.tier->Stats().healthy);
  CHECK_FALSE(reported);
}

TEST_CASE("a tiered store reads through to the remote and back-fills locally", "[remote][tiered]") {
  store::testing::TempDir dir_a, dir_b;
  Fixture shared;
  MemoryBackend* backend_a = shared.backend;
  // Two stores over one remote: the second tier shares the first's data.
  auto owned_b = std::make_unique<MemoryBackend>();
  MemoryBackend* backend_b = owned_b.get();
  TieredStore a(store::testing::OpenOrFail(store::testing::OptionsFor(dir_a)), std::move(shared.tier));
  TieredStore b(store::testing::OpenOrFail(store::testing::OptionsFor(dir_b)),
                std::make_unique<RemoteTier>(RemoteOptions{}, std::move(owned_b)));
  store::ArtifactRecord r = TierRecord("a");
  r.payload_digest.clear();  // filled by Put, for both tiers
  REQUIRE(a.Put(r, kTierAlias).ok());
  backend_b->CopyFrom(*backend_a);

  auto alias = b.GetAlias(kTierAlias);
  REQUIRE(alias.ok());
  REQUIRE(alias->has_value());
  auto got = b.Get(**alias);
  REQUIRE(got.ok());
  REQUIRE(got->has_value());
  CHECK((*got)->payload == r.payload);
  CHECK(b.Stats().artifacts == 1);  // back-filled
  CHECK(b.Stats().aliases == 1);
  CHECK(b.remote().Stats().hits == 2);

  backend_b->FailEveryCall(Unavailable("connection refused"));  // local hits need no remote
  REQUIRE(b.Get(r.key).ok());
  CHECK(b.Get(r.key)->has_value());
  CHECK(b.remote().Stats().errors == 0);
}

TEST_CASE("a tiered store serves local misses when the remote is down", "[remote][tiered]") {
  store::testing::TempDir dir;
  auto backend = std::make_unique<MemoryBackend>();
  backend->FailEveryCall(Unavailable("connection refused"));
  TieredStore s(store::testing::OpenOrFail(store::testing::OptionsFor(dir)),
                std::make_unique<RemoteTier>(RemoteOptions{}, std::move(backend)));
  auto got = s.Get(TierRecord("a").key);
  REQUIRE(got.ok());
  CHECK_FALSE(got->has_value());
  REQUIRE(s.Put(TierRecord("a")).ok());  // the local write succeeds
  CHECK(s.Get(TierRecord("a").key)->has_value());
}

TEST_CASE("the admission rules refuse artifacts over the size or under the compile time, and count them",
          "[remote][tier]") {
  RemoteOptions o;
  o.max_share_bytes = 16;
  o.min_share_compile = 5ms;
  RemoteTier tier(std::move(o), std::make_unique<MemoryBackend>());
  store::ArtifactRecord r = TierRecord("a");  // "payload a": 9 bytes
  r.compile_micros = 5000;
  CHECK(tier.ShareDecision(r) == Share::kYes);
  r.ptx = "12345678";  // 17 bytes with the PTX
  CHECK(tier.ShareDecision(r) == Share::kTooLarge);
  r.ptx.clear();
  r.compile_micros = 4999;
  CHECK(tier.ShareDecision(r) == Share::kTooCheap);
  CHECK(tier.Stats().not_shared_large == 1);
  CHECK(tier.Stats().not_shared_cheap == 1);
  RemoteOptions unlimited;
  unlimited.max_share_bytes = 0;
  RemoteTier any(std::move(unlimited), std::make_unique<MemoryBackend>());
  r.payload.assign(64 << 20, 'x');
  CHECK(any.ShareDecision(r) == Share::kYes);
}

TEST_CASE("a tiered store keeps what the rules refuse local, and shares its aliases, which others miss through",
          "[remote][tiered]") {
  store::testing::TempDir dir;
  auto owned = std::make_unique<MemoryBackend>();
  MemoryBackend* backend = owned.get();
  RemoteOptions o;
  o.max_share_bytes = 16;
  TieredStore s(store::testing::OpenOrFail(store::testing::OptionsFor(dir)),
                std::make_unique<RemoteTier>(std::move(o), std::move(owned)));
  store::ArtifactRecord large = TierRecord("large");
  large.payload.assign(17, 'x');
  large.payload_digest.clear();
  REQUIRE(s.Put(large, kTierAlias).ok());
  // Its aliases go (a rebound fast key must not keep naming an older
  // artifact in the remote); the artifact does not.
  const store::AliasKey other{"uid:1", "ns", "cpu:x86-64", "fk2"};
  REQUIRE(s.PutAliasValue(other, {large.key, {}}).ok());
  CHECK(backend->size() == 2);
  CHECK_FALSE(s.remote().GetArtifact(large.key)->has_value());
  CHECK(s.remote().GetAlias(other)->has_value());
  CHECK(s.Stats().artifacts == 1);
  CHECK(s.Stats().aliases == 2);
  CHECK(s.remote().Stats().not_shared_large == 1);
  // A small one goes, with its alias (rebinding `other`).
  REQUIRE(s.Put(TierRecord("a"), other).ok());
  CHECK(backend->size() == 3);
}

TEST_CASE("with back-fill off a tiered store serves remote hits without keeping them, nor their new aliases",
          "[remote][tiered]") {
  store::testing::TempDir dir_a, dir_b;
  Fixture shared;
  MemoryBackend* backend_a = shared.backend;
  TieredStore a(store::testing::OpenOrFail(store::testing::OptionsFor(dir_a)), std::move(shared.tier));
  auto owned_b = std::make_unique<MemoryBackend>();
  MemoryBackend* backend_b = owned_b.get();
  RemoteOptions o;
  o.backfill = false;
  TieredStore b(store::testing::OpenOrFail(store::testing::OptionsFor(dir_b)),
                std::make_unique<RemoteTier>(std::move(o), std::move(owned_b)));
  store::ArtifactRecord r = TierRecord("a");
  r.payload_digest.clear();
  REQUIRE(a.Put(r, kTierAlias).ok());
  backend_b->CopyFrom(*backend_a);
  REQUIRE(backend_b->size() == 2);

  auto alias = b.GetAlias(kTierAlias);
  REQUIRE(alias.ok());
  REQUIRE(alias->has_value());
  auto got = b.GetShared(**alias);
  REQUIRE(got.ok());
  REQUIRE(*got != nullptr);
  CHECK((*got)->payload == r.payload);
  CHECK(b.Stats().artifacts == 0);
  CHECK(b.Stats().aliases == 0);
  // Another fast key for the remote artifact: to the remote only.
  const store::AliasKey other{"uid:2", "ns", "cpu:x86-64", "fk"};
  REQUIRE(b.PutAliasValue(other, {r.key, {}}).ok());
  CHECK(b.Stats().aliases == 0);
  CHECK(backend_b->size() == 3);
  // Its own compiles stay local as usual, with their aliases.
  REQUIRE(b.Put(TierRecord("own"), other).ok());
  CHECK(b.Stats().artifacts == 1);
  CHECK(b.Stats().aliases == 1);

  // What the remote answered is not the local store's to vouch for: every
  // read answered from there moves the generation, local hits do not.
  const std::optional<std::uint64_t> before = b.Generation();
  REQUIRE(before.has_value());
  REQUIRE(b.GetShared(TierRecord("own").key).ok());
  CHECK(b.Generation() == before);
  REQUIRE(b.GetAlias(kTierAlias).ok());
  const std::optional<std::uint64_t> after_alias = b.Generation();
  CHECK(after_alias != before);
  REQUIRE(b.GetShared(r.key).ok());
  CHECK(b.Generation() != after_alias);
}

TEST_CASE("compile leases: taken once, renewed and released by their owner only, never by a read-only tier",
          "[remote][tier][fleet]") {
  Fixture f;
  const store::ArtifactKey key = TierRecord("leased").key;
  const std::string lease_key = LeaseRedisKey("qdcache:", key);
  CHECK_FALSE(*f.tier->LeaseHeld(key));
  CHECK(*f.tier->TakeLease(key, "a", 10s));
  CHECK(f.backend->Value(lease_key) == std::optional<std::string>("a"));
  CHECK(f.backend->TtlSeconds(lease_key) == 10);
  CHECK(*f.tier->LeaseHeld(key));
  CHECK_FALSE(*f.tier->TakeLease(key, "b", 10s));
  CHECK_FALSE(*f.tier->UpdateLease(key, "b", 0ms));
  CHECK(*f.tier->UpdateLease(key, "a", 30s));
  CHECK(f.backend->TtlSeconds(lease_key) == 30);
  CHECK(*f.tier->UpdateLease(key, "a", 0ms));
  CHECK_FALSE(*f.tier->LeaseHeld(key));
  CHECK(f.tier->Stats().writes == 0);  // leases are not artifact or alias writes

  Fixture read_only(/*read_only=*/true);
  CHECK(read_only.tier->TakeLease(key, "a", 10s).status().code() == Code::kFailedPrecondition);
  CHECK(read_only.backend->size() == 0);
  CHECK_FALSE(*read_only.tier->LeaseHeld(key));  // reading is allowed

  // A remote that is down answers UNAVAILABLE (the caller compiles), and counts for the breaker.
  f.backend->FailEveryCall(Unavailable("down"));
  CHECK(f.tier->TakeLease(key, "a", 10s).status().code() == Code::kUnavailable);
  CHECK(f.tier->LeaseHeld(key).status().code() == Code::kUnavailable);
  CHECK_FALSE(f.tier->Stats().healthy);
}
