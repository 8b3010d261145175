// The RemoteBackend contract (remote/remote_backend.h) as one Catch2 suite,
// run alike against every backend: the in-memory test double
// (tests/unit/remote/memory_backend_test.cc) and the real Redis, standalone
// and Cluster (tests/integration/remote_backend_test.cc). A backend that
// passes it may sit under the remote tier.
//
// Use: from a TEST_CASE, CheckRemoteBackendContract(factory). Each behaviour
// is a SECTION; Catch2 runs the test case once per section, and each run
// makes a fresh harness (a fresh server for the real ones).
#pragma once

#include <catch2/catch.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/expected.h"
#include "remote/remote_backend.h"

namespace qdcache::testing {

// One backend under test, and what the suite needs to look behind it.
class RemoteBackendHarness {
 public:
  virtual ~RemoteBackendHarness() = default;
  virtual remote::RemoteBackend& backend() = 0;
  // The TTL of `key` as the server reports it (as Redis TTL answers: seconds
  // left, -1 for none, -2 when there is no key).
  virtual long long TtlSeconds(const std::string& key) = 0;
  // Stores a value of another type (a list) under `key`, past the backend.
  virtual void StoreWrongType(const std::string& key) = 0;
  // How many servers hold the data, and how many of them hold at least one
  // of `keys`.
  virtual int ServerCount() = 0;
  virtual int ServersHolding(const std::vector<std::string>& keys) = 0;
  // Every server dies: connections are refused from now on.
  virtual void KillServers() = 0;
  // Every server stops answering: connections open, replies never come.
  virtual void StallServers() = 0;
};

using RemoteBackendHarnessFactory = std::function<std::unique_ptr<RemoteBackendHarness>()>;

namespace conformance {

template <typename T>
T Must(Expected<T> result) {
  INFO(result.status().ToString());
  REQUIRE(result.ok());
  return std::move(result).value();
}

inline void MustOk(const Status& status) {
  INFO(status.ToString());
  REQUIRE(status.ok());
}

// Bytes 0..255 over and over: NULs and every non-UTF-8 byte.
inline std::string AllBytes(std::size_t size) {
  std::string out(size, '\0');
  for (std::size_t i = 0; i < size; ++i) out[i] = static_cast<char>(i % 256);
  return out;
}

}  // namespace conformance

inline void CheckRemoteBackendContract(const RemoteBackendHarnessFactory& make) {
  using conformance::Must;
  using conformance::MustOk;
  using std::chrono::seconds;
  const std::unique_ptr<RemoteBackendHarness> harness = make();
  remote::RemoteBackend& backend = harness->backend();
  const std::string key = "conformance:key";

  SECTION("a key never written is a miss, not an error; a written value reads back") {
    CHECK_FALSE(Must(backend.Get(key)).has_value());
    MustOk(backend.Put(key, "value", seconds(0)));
    CHECK(Must(backend.Get(key)) == std::optional<std::string>("value"));
    MustOk(backend.Ping());
  }

  SECTION("a second Put replaces the value and its expiry") {
    MustOk(backend.Put(key, "first", seconds(100)));
    MustOk(backend.Put(key, "second", seconds(0)));
    CHECK(Must(backend.Get(key)) == std::optional<std::string>("second"));
    CHECK(harness->TtlSeconds(key) == -1);
  }

  SECTION("Put sets the TTL on the key; a TTL of zero leaves the key without expiry") {
    MustOk(backend.Put(key, "expires", seconds(100)));
    const long long ttl = harness->TtlSeconds(key);
    CHECK(ttl > 0);
    CHECK(ttl <= 100);
    MustOk(backend.Put("conformance:forever", "stays", seconds(0)));
    CHECK(harness->TtlSeconds("conformance:forever") == -1);
  }

  SECTION("MultiGet answers every key in order, hits and misses mixed, from every server") {
    std::vector<std::string> keys, written;
    for (int i = 0; i < 24; ++i) keys.push_back("conformance:multi:" + std::to_string(i));
    for (std::size_t i = 0; i < keys.size(); i += 2) {
      MustOk(backend.Put(keys[i], "value " + keys[i], seconds(0)));
      written.push_back(keys[i]);
    }
    REQUIRE(harness->ServersHolding(written) == harness->ServerCount());
    const std::vector<std::optional<std::string>> values = Must(backend.MultiGet(keys));
    REQUIRE(values.size() == keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) {
      INFO(keys[i]);
      if (i % 2 == 0) {
        CHECK(values[i] == std::optional<std::string>("value " + keys[i]));
      } else {
        CHECK_FALSE(values[i].has_value());
      }
    }
    CHECK(Must(backend.MultiGet({})).empty());
  }

  SECTION("binary keys and values, NUL bytes included, come back unchanged") {
    const std::string binary_key("conformance:\0key\xff", 17);
    const std::string value = conformance::AllBytes(100000);
    MustOk(backend.Put(binary_key, value, seconds(0)));
    CHECK(Must(backend.Get(binary_key)) == std::optional<std::string>(value));
    const std::vector<std::optional<std::string>> values =
        Must(backend.MultiGet({binary_key, std::string("conformance:\0other", 18)}));
    REQUIRE(values.size() == 2);
    CHECK(values[0] == std::optional<std::string>(value));
    CHECK_FALSE(values[1].has_value());
  }

  SECTION("a server that is down answers UNAVAILABLE to every call, never a miss") {
    MustOk(backend.Put(key, "value", seconds(0)));  // leaves a connection to reuse
    harness->KillServers();
    CHECK(backend.Get(key).status().code() == Code::kUnavailable);
    CHECK(backend.Get("conformance:missing").status().code() == Code::kUnavailable);
    CHECK(backend.MultiGet({key, "conformance:missing"}).status().code() == Code::kUnavailable);
    CHECK(backend.Put(key, "value", seconds(0)).code() == Code::kUnavailable);
    CHECK(backend.Ping().code() == Code::kUnavailable);
  }

  SECTION("a server that stops answering is UNAVAILABLE once the call times out") {
    MustOk(backend.Put(key, "value", seconds(0)));
    harness->StallServers();
    CHECK(backend.Get(key).status().code() == Code::kUnavailable);
  }

  SECTION("a lease is taken once, kept by its owner only, and ends with it") {
    using std::chrono::milliseconds;
    const std::string lease = "conformance:lease";
    CHECK(Must(backend.PutIfAbsent(lease, "owner-a", milliseconds(60000))));
    CHECK_FALSE(Must(backend.PutIfAbsent(lease, "owner-b", milliseconds(60000))));
    CHECK(Must(backend.Get(lease)) == std::optional<std::string>("owner-a"));
    const long long ttl = harness->TtlSeconds(lease);
    CHECK(ttl > 0);
    CHECK(ttl <= 60);
    // Another owner can neither extend nor end it.
    CHECK_FALSE(Must(backend.UpdateIfEquals(lease, "owner-b", milliseconds(600000))));
    CHECK_FALSE(Must(backend.UpdateIfEquals(lease, "owner-b", milliseconds(0))));
    CHECK(harness->TtlSeconds(lease) <= 60);
    CHECK(Must(backend.UpdateIfEquals(lease, "owner-a", milliseconds(600000))));
    CHECK(harness->TtlSeconds(lease) > 60);
    CHECK(Must(backend.UpdateIfEquals(lease, "owner-a", milliseconds(0))));
    CHECK_FALSE(Must(backend.Get(lease)).has_value());
    CHECK_FALSE(Must(backend.UpdateIfEquals(lease, "owner-a", milliseconds(0))));
    CHECK(Must(backend.PutIfAbsent(lease, "owner-b", milliseconds(60000))));
    // A key holding another type is not a lease anyone owns.
    const std::string list = "conformance:list";
    harness->StoreWrongType(list);
    CHECK_FALSE(Must(backend.PutIfAbsent(list, "owner-a", milliseconds(60000))));
  }

  SECTION("an error reply about one command is FAILED_PRECONDITION; the backend goes on working") {
    const std::string list = "conformance:list";
    harness->StoreWrongType(list);
    CHECK(backend.Get(list).status().code() == Code::kFailedPrecondition);
    MustOk(backend.Put(key, "value", seconds(0)));
    // MGET answers nil for a key of another type: a miss.
    const std::vector<std::optional<std::string>> values = Must(backend.MultiGet({list, key}));
    REQUIRE(values.size() == 2);
    CHECK_FALSE(values[0].has_value());
    CHECK(values[1] == std::optional<std::string>("value"));
    MustOk(backend.Ping());
  }
}

}  // namespace qdcache::testing
