#include <catch2/catch.hpp>

#include "remote/redis_url.h"

using namespace qdcache;
using namespace qdcache::remote;

TEST_CASE("a redis:// URL names one server and an optional prefix", "[remote][url]") {
  Expected<RemoteUrl> url = ParseRemoteUrl("redis://cache.example:6380/ci");
  REQUIRE(url.ok());
  CHECK_FALSE(url->cluster);
  REQUIRE(url->nodes.size() == 1);
  CHECK(url->nodes[0] == Endpoint{"cache.example", 6380});
  CHECK(url->prefix == "ci:");
  CHECK(url->ToString() == "redis://cache.example:6380/ci:");
}

TEST_CASE("the port defaults to 6379 and the prefix to qdcache:", "[remote][url]") {
  Expected<RemoteUrl> url = ParseRemoteUrl("redis://127.0.0.1");
  REQUIRE(url.ok());
  CHECK(url->nodes[0] == Endpoint{"127.0.0.1", 6379});
  CHECK(url->prefix == "qdcache:");
  CHECK(ParseRemoteUrl("redis://h:1/")->prefix == "qdcache:");
  CHECK(ParseRemoteUrl("redis://h:1/team:")->prefix == "team:");
}

TEST_CASE("a redis-cluster:// URL takes several seeds", "[remote][url]") {
  Expected<RemoteUrl> url = ParseRemoteUrl("redis-cluster://a:7000,b:7001,[::1]:7002/x");
  REQUIRE(url.ok());
  CHECK(url->cluster);
  REQUIRE(url->nodes.size() == 3);
  CHECK(url->nodes[1] == Endpoint{"b", 7001});
  CHECK(url->nodes[2] == Endpoint{"::1", 7002});
  CHECK(url->nodes[2].ToString() == "[::1]:7002");
}

TEST_CASE("credentials in the URL are refused without echoing them", "[remote][url]") {
  Expected<RemoteUrl> url = ParseRemoteUrl("redis://user:s3cret@host:6379");
  REQUIRE_FALSE(url.ok());
  CHECK(url.status().code() == Code::kInvalidArgument);
  CHECK(url.status().message().find("s3cret") == std::string::npos);
  CHECK(url.status().message().find("QDCACHED_REMOTE_PASSWORD") != std::string::npos);
}

TEST_CASE("malformed remote URLs are refused", "[remote][url]") {
  for (const char* bad :
       {"", "http://h:1", "redis://", "redis://:6379", "redis://h:", "redis://h:0", "redis://h:65536",
        "redis://h:12x", "redis://a:1,b:2", "redis-cluster://a:1,,b:2", "redis://[::1", "redis://h h:1",
        "redis://h:1/pre fix", "redis://h:1/p?x=1"}) {
    INFO(bad);
    CHECK_FALSE(ParseRemoteUrl(bad).ok());
  }
}
