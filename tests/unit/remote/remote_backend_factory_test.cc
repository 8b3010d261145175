// The --remote URL's scheme chooses the backend; building one contacts nothing
// and what it says of itself holds no secret.
#include "remote/remote_backend_factory.h"

#include <catch2/catch.hpp>

using namespace qdcache;
using namespace qdcache::remote;

namespace {

ConnectOptions WithPassword() {
  ConnectOptions o;
  o.username = "builder";
  o.password = "hunter2";
  return o;
}

std::unique_ptr<RemoteBackend> Make(const std::string& url) {
  Expected<RemoteUrl> parsed = ParseRemoteUrl(url);
  REQUIRE(parsed.ok());
  Expected<std::unique_ptr<RemoteBackend>> backend = MakeRemoteBackend(*parsed, WithPassword());
  REQUIRE(backend.ok());
  return std::move(backend).value();
}

}  // namespace

TEST_CASE("redis:// makes a standalone backend and redis-cluster:// a cluster backend",
          "[remote][backend]") {
  CHECK(Make("redis://10.0.0.1:7000/p")->Describe() == "redis://10.0.0.1:7000");
  CHECK(Make("redis-cluster://10.0.0.1:7000,10.0.0.2/p")->Describe() ==
        "redis-cluster://10.0.0.1:7000,10.0.0.2:6379");
}

TEST_CASE("a backend describes itself without its credentials", "[remote][backend]") {
  for (const char* url : {"redis://10.0.0.1", "redis-cluster://10.0.0.1"}) {
    const std::string described = Make(url)->Describe();
    CHECK(described.find("hunter2") == std::string::npos);
    CHECK(described.find("builder") == std::string::npos);
  }
}

TEST_CASE("a URL naming no node makes no backend", "[remote][backend]") {
  CHECK(MakeRemoteBackend(RemoteUrl{}, ConnectOptions{}).status().code() == Code::kInvalidArgument);
}
