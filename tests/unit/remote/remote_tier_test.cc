// The remote tier and TieredStore over an in-memory RedisClient (a fake for
// logic only; the real Redis is exercised by tests/integration/remote_*).
#include <catch2/catch.hpp>
#include <map>

#include "common/digest.h"
#include "remote/remote_codec.h"
#include "remote/remote_tier.h"
#include "remote/tiered_store.h"
#include "tests/unit/store/store_test_util.h"

using namespace qdcache;
using namespace qdcache::remote;
using namespace std::chrono_literals;

namespace {

// GET and SET over a map; `down` makes every call fail like a dead server.
class MemoryRedis final : public RedisClient {
 public:
  Expected<Reply> Execute(std::string_view, const std::vector<std::string>& argv) override {
    ++calls;
    if (down) return Unavailable("connection refused");
    Reply r;
    if (!error_reply.empty()) {
      r.type = Reply::Type::kError;
      r.str = error_reply;
      return ReplyError(Endpoint{"127.0.0.1", 6379}, r);
    }
    if (argv[0] == "GET") {
      auto it = data.find(argv[1]);
      if (it != data.end()) {
        r.type = Reply::Type::kString;
        r.str = it->second;
      }
    } else if (argv[0] == "SET") {
      data[argv[1]] = argv[2];
      last_set = argv;
      r.type = Reply::Type::kStatus;
      r.str = "OK";
    }
    return r;
  }
  Status Ping() override { return down ? Unavailable("connection refused") : Status::Ok(); }

  std::map<std::string, std::string> data;
  std::vector<std::string> last_set;
  bool down = false;
  std::string error_reply;  // non-empty: every command gets this error reply
  int calls = 0;
};

struct Fixture {
  explicit Fixture(bool read_only = false, std::chrono::seconds ttl = 0s) {
    auto client = std::make_unique<MemoryRedis>();
    redis = client.get();
    RemoteOptions o;
    o.read_only = read_only;
    o.ttl = ttl;
    o.breaker.failure_threshold = 2;
    o.breaker.backoff = 1s;
    tier = std::make_unique<RemoteTier>(std::move(o), std::move(client), [this] { return now; });
  }
  MemoryRedis* redis;
  std::chrono::steady_clock::time_point now{};
  std::unique_ptr<RemoteTier> tier;
};

store::ArtifactRecord Record(const std::string& seed) {
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

const store::AliasKey kAlias{"uid:1", "ns", "cpu:x86-64", "fk"};

}  // namespace

TEST_CASE("what one tier writes, the tier reads back and counts", "[remote][tier]") {
  Fixture f;
  const store::ArtifactRecord r = Record("a");
  REQUIRE(f.tier->PutArtifact(r).ok());
  REQUIRE(f.tier->PutAlias(kAlias, r.key).ok());
  auto got = f.tier->GetArtifact(r.key);
  REQUIRE(got.ok());
  REQUIRE(got->has_value());
  CHECK((*got)->payload == r.payload);
  auto alias = f.tier->GetAlias(kAlias);
  REQUIRE(alias.ok());
  CHECK(**alias == r.key);
  auto missing = f.tier->GetArtifact(Record("b").key);
  REQUIRE(missing.ok());
  CHECK_FALSE(missing->has_value());
  const RemoteStats s = f.tier->Stats();
  CHECK(s.writes == 2);
  CHECK(s.hits == 2);
  CHECK(s.misses == 1);
  CHECK(s.healthy);
}

TEST_CASE("a corrupt remote value is a counted miss", "[remote][tier]") {
  Fixture f;
  const store::ArtifactRecord r = Record("a");
  f.redis->data[ArtifactRedisKey("qdcache:", r.key)] = "garbage";
  f.redis->data[AliasRedisKey("qdcache:", kAlias)] = EncodeArtifactValue(r);  // wrong kind
  auto got = f.tier->GetArtifact(r.key);
  REQUIRE(got.ok());
  CHECK_FALSE(got->has_value());
  auto alias = f.tier->GetAlias(kAlias);
  REQUIRE(alias.ok());
  CHECK_FALSE(alias->has_value());
  CHECK(f.tier->Stats().corrupt == 2);
  CHECK(f.tier->Stats().misses == 2);
  CHECK(f.tier->Stats().healthy);  // the remote answered: not a failure
}

TEST_CASE("a read-only tier never writes", "[remote][tier]") {
  Fixture f(/*read_only=*/true);
  REQUIRE(f.tier->PutArtifact(Record("a")).ok());
  REQUIRE(f.tier->PutAlias(kAlias, Record("a").key).ok());
  CHECK(f.redis->calls == 0);
  CHECK(f.tier->Stats().writes == 0);
}

TEST_CASE("written keys carry the TTL when one is set", "[remote][tier]") {
  Fixture f(false, 3600s);
  REQUIRE(f.tier->PutArtifact(Record("a")).ok());
  REQUIRE(f.redis->last_set.size() == 5);
  CHECK(f.redis->last_set[3] == "EX");
  CHECK(f.redis->last_set[4] == "3600");
}

TEST_CASE("failures open the breaker, and calls are skipped until a probe succeeds", "[remote][tier]") {
  Fixture f;
  f.redis->down = true;
  const store::ArtifactRecord r = Record("a");
  CHECK_FALSE(f.tier->GetArtifact(r.key).ok());
  CHECK_FALSE(f.tier->PutArtifact(r).ok());
  CHECK_FALSE(f.tier->Stats().healthy);
  const int calls = f.redis->calls;
  CHECK_FALSE(f.tier->GetArtifact(r.key).ok());
  CHECK(f.redis->calls == calls);  // not called
  RemoteStats s = f.tier->Stats();
  CHECK(s.errors == 1);
  CHECK(s.write_failures == 1);
  CHECK(s.skipped == 1);
  f.redis->down = false;
  f.now += 1s;
  REQUIRE(f.tier->GetArtifact(r.key).ok());  // the probe
  CHECK(f.tier->Stats().healthy);
}

TEST_CASE("error replies about one command leave the breaker closed; those meaning the remote is down open it",
          "[remote][tier]") {
  Fixture f;
  const store::ArtifactRecord r = Record("a");
  f.redis->error_reply = "OOM command not allowed when used memory > 'maxmemory'.";
  for (int i = 0; i < 5; ++i) CHECK_FALSE(f.tier->PutArtifact(r).ok());
  f.redis->error_reply = "WRONGTYPE Operation against a key holding the wrong kind of value";
  for (int i = 0; i < 5; ++i) CHECK_FALSE(f.tier->GetArtifact(r.key).ok());
  RemoteStats s = f.tier->Stats();
  CHECK(s.healthy);
  CHECK(s.skipped == 0);
  CHECK(s.write_failures == 5);
  CHECK(s.errors == 5);
  f.redis->error_reply = "NOAUTH Authentication required.";
  CHECK_FALSE(f.tier->GetArtifact(r.key).ok());
  CHECK_FALSE(f.tier->GetArtifact(r.key).ok());
  CHECK_FALSE(f.tier->Stats().healthy);  // threshold 2
}

TEST_CASE("a failed start-up probe opens the breaker", "[remote][tier]") {
  Fixture f;
  f.redis->down = true;
  bool reported = true;
  f.tier->SetHealthListener([&](bool healthy) { reported = healthy; });
  CHECK_FALSE(f.tier->Probe().ok());
  CHECK_FALSE(f.tier->Stats().healthy);
  CHECK_FALSE(reported);
}

TEST_CASE("a tiered store reads through to the remote and back-fills locally", "[remote][tiered]") {
  store::testing::TempDir dir_a, dir_b;
  Fixture shared;
  MemoryRedis* redis = shared.redis;
  // Two stores over one remote: the second tier shares the first's data.
  auto client_b = std::make_unique<MemoryRedis>();
  MemoryRedis* redis_b = client_b.get();
  TieredStore a(store::testing::OpenOrFail(store::testing::OptionsFor(dir_a)), std::move(shared.tier));
  TieredStore b(store::testing::OpenOrFail(store::testing::OptionsFor(dir_b)),
                std::make_unique<RemoteTier>(RemoteOptions{}, std::move(client_b)));
  store::ArtifactRecord r = Record("a");
  r.payload_digest.clear();  // filled by Put, for both tiers
  REQUIRE(a.Put(r, kAlias).ok());
  redis_b->data = redis->data;

  auto alias = b.GetAlias(kAlias);
  REQUIRE(alias.ok());
  REQUIRE(alias->has_value());
  auto got = b.Get(**alias);
  REQUIRE(got.ok());
  REQUIRE(got->has_value());
  CHECK((*got)->payload == r.payload);
  CHECK(b.Stats().artifacts == 1);  // back-filled
  CHECK(b.Stats().aliases == 1);
  CHECK(b.remote().Stats().hits == 2);

  redis_b->down = true;  // local hits need no remote
  REQUIRE(b.Get(r.key).ok());
  CHECK(b.Get(r.key)->has_value());
  CHECK(b.remote().Stats().errors == 0);
}

TEST_CASE("a tiered store serves local misses when the remote is down", "[remote][tiered]") {
  store::testing::TempDir dir;
  auto client = std::make_unique<MemoryRedis>();
  client->down = true;
  TieredStore s(store::testing::OpenOrFail(store::testing::OptionsFor(dir)),
                std::make_unique<RemoteTier>(RemoteOptions{}, std::move(client)));
  auto got = s.Get(Record("a").key);
  REQUIRE(got.ok());
  CHECK_FALSE(got->has_value());
  REQUIRE(s.Put(Record("a")).ok());  // the local write succeeds
  CHECK(s.Get(Record("a").key)->has_value());
}
