#include <catch2/catch.hpp>

#include "common/digest.h"
#include "remote/remote_codec.h"

using namespace qdcache;
using namespace qdcache::remote;

namespace {

store::ArtifactRecord Record(const std::string& key_seed) {
  store::ArtifactRecord r;
  r.key = DigestBytes(Sha256(key_seed));
  r.kind = 2;
  r.target = "cpu:x86-64";
  r.toolchain = "abc";
  r.payload = std::string(4096, 'x') + key_seed;
  r.payload_digest = DigestBytes(Sha256(r.payload));
  r.metadata = "meta";
  r.created_unix_ms = 1;
  return r;
}

const store::AliasKey kAlias{"uid:1000", "ns", "cpu:x86-64", "fast"};

}  // namespace

TEST_CASE("an artifact value decodes to the record it was made from", "[remote][codec]") {
  const store::ArtifactRecord r = Record("a");
  const std::string value = EncodeArtifactValue(r);
  CHECK(value.size() < r.payload.size());  // compressed
  store::ArtifactRecord out;
  REQUIRE(DecodeArtifactValue(value, r.key, 1 << 20, &out).ok());
  CHECK(out.payload == r.payload);
  CHECK(out.target == r.target);
  CHECK(out.metadata == r.metadata);
}

TEST_CASE("a value under another key is refused", "[remote][codec]") {
  const std::string value = EncodeArtifactValue(Record("a"));
  store::ArtifactRecord out;
  Status s = DecodeArtifactValue(value, Record("b").key, 1 << 20, &out);
  CHECK(s.code() == Code::kDataLoss);
}

TEST_CASE("corrupt, truncated or foreign artifact values are refused", "[remote][codec]") {
  const store::ArtifactRecord r = Record("a");
  const std::string good = EncodeArtifactValue(r);
  store::ArtifactRecord out;
  SECTION("every bit flip is refused, or changes nothing the record holds") {
    // A few bits of a zstd frame do not affect what it decompresses to (the
    // digest over the body is what makes the value trustworthy).
    int refused = 0;
    for (std::size_t i = 0; i < good.size(); ++i) {
      for (int bit = 0; bit < 8; ++bit) {
        std::string bad = good;
        bad[i] ^= static_cast<char>(1 << bit);
        INFO(i << ":" << bit);
        store::ArtifactRecord decoded;
        if (DecodeArtifactValue(bad, r.key, 1 << 20, &decoded).ok()) {
          CHECK(i >= kValueHeaderSize);
          CHECK(decoded.payload == r.payload);
          CHECK(decoded.metadata == r.metadata);
        } else {
          ++refused;
        }
      }
    }
    CHECK(refused > static_cast<int>(good.size() * 8 * 9 / 10));
  }
  SECTION("every truncation") {
    for (std::size_t n = 0; n < good.size(); ++n) {
      INFO(n);
      CHECK_FALSE(DecodeArtifactValue(good.substr(0, n), r.key, 1 << 20, &out).ok());
    }
  }
  SECTION("foreign values") {
    for (const std::string& foreign : {std::string("hello"), std::string(100, '\0'), r.payload,
                                       EncodeAliasValue(kAlias, r.key)}) {
      CHECK_FALSE(DecodeArtifactValue(foreign, r.key, 1 << 20, &out).ok());
    }
  }
  SECTION("a body over the size bound is refused before decompressing") {
    Status s = DecodeArtifactValue(good, r.key, 100, &out);
    CHECK(s.code() == Code::kDataLoss);
    CHECK(s.message().find("limit") != std::string::npos);
  }
}

TEST_CASE("an alias value holds its alias fields and artifact key", "[remote][codec]") {
  const std::string key = DigestBytes(Sha256("k"));
  const std::string value = EncodeAliasValue(kAlias, key);
  store::ArtifactKey out;
  REQUIRE(DecodeAliasValue(value, kAlias, &out).ok());
  CHECK(out == key);
  for (int field = 0; field < 4; ++field) {
    store::AliasKey other = kAlias;
    std::string* fields[] = {&other.tenant, &other.ns, &other.target, &other.fast_key};
    *fields[field] += "x";
    INFO(field);
    CHECK(DecodeAliasValue(value, other, &out).code() == Code::kDataLoss);
  }
  std::string bad = value;
  bad.back() ^= 0x10;
  CHECK_FALSE(DecodeAliasValue(bad, kAlias, &out).ok());
  CHECK_FALSE(DecodeAliasValue(value.substr(0, value.size() - 1), kAlias, &out).ok());
  // A well-formed value whose target is not an artifact key (32 bytes).
  CHECK(DecodeAliasValue(EncodeAliasValue(kAlias, key + "x"), kAlias, &out).code() == Code::kDataLoss);
  CHECK(DecodeAliasValue(EncodeAliasValue(kAlias, "k"), kAlias, &out).code() == Code::kDataLoss);
}

TEST_CASE("an alias value carries its manifest, and one without reads as before", "[remote][codec]") {
  const std::string key = DigestBytes(Sha256("k"));
  const store::AliasValue with{key, "manifest bytes"};
  store::AliasValue out;
  REQUIRE(DecodeAliasValue(EncodeAliasValue(kAlias, with), kAlias, &out).ok());
  CHECK(out == with);
  // Without a manifest the value is the layout daemons before manifests wrote.
  CHECK(EncodeAliasValue(kAlias, store::AliasValue{key, {}}) == EncodeAliasValue(kAlias, key));
  REQUIRE(DecodeAliasValue(EncodeAliasValue(kAlias, key), kAlias, &out).ok());
  CHECK(out == store::AliasValue{key, {}});
}

TEST_CASE("redis keys are prefixed, versioned and distinct per kind", "[remote][codec]") {
  const std::string key = DigestBytes(Sha256("k"));
  CHECK(ArtifactRedisKey("p:", key) == "p:v1:a:" + ToHex(key));
  const std::string alias_key = AliasRedisKey("p:", kAlias);
  CHECK(alias_key.starts_with("p:v1:l:"));
  CHECK(alias_key.size() == 7 + 64);
  store::AliasKey other = kAlias;
  other.tenant = "uid:1001";
  CHECK(AliasRedisKey("p:", other) != alias_key);
}

namespace {

signing::SigningKey NewKey() {
  Expected<signing::SigningKey> key = signing::SigningKey::Generate();
  REQUIRE(key.ok());
  return std::move(key).value();
}

signing::SignaturePolicy Trusting(const signing::SigningKey& key, bool require = true) {
  Expected<signing::TrustedKeys> keys = signing::TrustedKeys::Parse(key.PublicPem(), "test");
  REQUIRE(keys.ok());
  return {std::make_shared<const signing::TrustedKeys>(std::move(keys).value()), require};
}

}  // namespace

TEST_CASE("a signed value carries its writer's signature, which a policy with that key accepts",
          "[remote][codec][signing]") {
  const signing::SigningKey writer = NewKey();
  const store::ArtifactRecord r = Record("a");
  const std::string value = EncodeArtifactValue(r, &writer);
  CHECK(static_cast<std::uint8_t>(value[4]) == kSignedValueVersion);
  CHECK(value.substr(kValueHeaderSize, signing::kPublicKeyBytes) == writer.public_key());
  store::ArtifactRecord out;
  REQUIRE(DecodeArtifactValue(value, r.key, 1 << 20, &out, Trusting(writer)).ok());
  CHECK(out.payload == r.payload);
  // Without a policy (no trusted keys) a signed value reads as any other.
  REQUIRE(DecodeArtifactValue(value, r.key, 1 << 20, &out).ok());

  store::AliasValue alias;
  const std::string alias_value = EncodeAliasValue(kAlias, store::AliasValue{r.key, "m"}, &writer);
  REQUIRE(DecodeAliasValue(alias_value, kAlias, &alias, Trusting(writer)).ok());
  CHECK(alias == store::AliasValue{r.key, "m"});
}

TEST_CASE("a policy with trusted keys refuses unsigned, foreign, tampered and copied values as untrusted",
          "[remote][codec][signing]") {
  const signing::SigningKey writer = NewKey();
  const signing::SigningKey stranger = NewKey();
  const signing::SignaturePolicy policy = Trusting(writer);
  const store::ArtifactRecord r = Record("a");
  store::ArtifactRecord out;
  const auto refusal = [&](const std::string& value, const store::ArtifactKey& key) {
    const Status s = DecodeArtifactValue(value, key, 1 << 20, &out, policy);
    CHECK(s.code() == Code::kUnauthenticated);
    return s.message();
  };
  CHECK_THAT(refusal(EncodeArtifactValue(r), r.key), Catch::Contains("unsigned"));
  CHECK_THAT(refusal(EncodeArtifactValue(r, &stranger), r.key), Catch::Contains("not a trusted key"));
  // The writer's own value, copied under another key: its signature is not for that key.
  CHECK_THAT(refusal(EncodeArtifactValue(r, &writer), Record("b").key), Catch::Contains("does not cover"));
  // A signature moved onto another record.
  const std::string signed_b = EncodeArtifactValue(Record("b"), &writer);
  const std::string signed_a = EncodeArtifactValue(r, &writer);
  const std::string moved = signed_b.substr(0, kValueHeaderSize) + signed_a.substr(kValueHeaderSize, 96) + signed_b.substr(kValueHeaderSize + 96);
  CHECK_THAT(refusal(moved, Record("b").key), Catch::Contains("does not cover"));
  // Not requiring signatures accepts the unsigned value, never the foreign one.
  const signing::SignaturePolicy lenient = Trusting(writer, false);
  CHECK(DecodeArtifactValue(EncodeArtifactValue(r), r.key, 1 << 20, &out, lenient).ok());
  CHECK(DecodeArtifactValue(EncodeArtifactValue(r, &stranger), r.key, 1 << 20, &out, lenient).code() ==
        Code::kUnauthenticated);
  // Damage to the envelope is still corruption, not distrust.
  std::string truncated = signed_a.substr(0, kValueHeaderSize + 50);
  CHECK(DecodeArtifactValue(truncated, r.key, 1 << 20, &out, policy).code() == Code::kDataLoss);

  store::AliasValue alias;
  const store::AliasKey other{"uid:1000", "ns", "cpu:x86-64", "fast2"};
  const std::string alias_value = EncodeAliasValue(kAlias, store::AliasValue{r.key, {}}, &writer);
  CHECK(DecodeAliasValue(alias_value, other, &alias, policy).code() == Code::kUnauthenticated);
  CHECK(DecodeAliasValue(EncodeAliasValue(kAlias, r.key), kAlias, &alias, policy).code() ==
        Code::kUnauthenticated);
  CHECK(DecodeAliasValue(EncodeAliasValue(kAlias, store::AliasValue{r.key, {}}, &stranger), kAlias, &alias,
                         policy).code() == Code::kUnauthenticated);
  // Without signatures checked, an alias value for another alias is what it always was: corrupt.
  CHECK(DecodeAliasValue(alias_value, other, &alias).code() == Code::kDataLoss);
}
