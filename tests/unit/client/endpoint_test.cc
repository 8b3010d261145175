// Where clients connect (client/endpoint.h), with the environment and the
// socket files given, so the system service's socket can be tested without
// touching /run.
#include <catch2/catch.hpp>
#include <map>
#include <set>

#include "client/endpoint.h"

using namespace qdcache;
using namespace qdcache::client;

namespace {

struct World {
  std::map<std::string, std::string> env;
  std::set<std::string> files;

  EndpointSources Sources() const {
    EndpointSources s;
    s.getenv = [this](const std::string& name) -> std::optional<std::string> {
      auto it = env.find(name);
      if (it == env.end()) return std::nullopt;
      return it->second;
    };
    s.user_socket = "/run/user/1000/qdcached.sock";
    s.system_socket = "/run/qdcached/qdcached.sock";
    s.exists = [this](const std::string& path) { return files.count(path) > 0; };
    return s;
  }

  ClientOptions Resolve(ClientOptions o = {}) const {
    Status s = ResolveEndpoint(o, Sources());
    INFO(s.ToString());
    REQUIRE(s.ok());
    return o;
  }
};

}  // namespace

TEST_CASE("endpoint: the caller's socket or address wins over the environment", "[client][endpoint]") {
  World w{{{"QDCACHE_SOCKET", "/env.sock"}, {"QDCACHE_ADDR", "env:1"}}, {}};
  ClientOptions socket;
  socket.socket_path = "/flag.sock";
  CHECK(w.Resolve(socket).socket_path == "/flag.sock");
  CHECK(w.Resolve(socket).address.empty());
  ClientOptions address;
  address.address = "flag:2";
  CHECK(w.Resolve(address).address == "flag:2");
}

TEST_CASE("endpoint: the environment wins over the defaults, and both variables are refused", "[client][endpoint]") {
  World w{{{"QDCACHE_SOCKET", "/env.sock"}}, {"/run/user/1000/qdcached.sock"}};
  CHECK(w.Resolve().socket_path == "/env.sock");
  World tcp{{{"QDCACHE_ADDR", "host:7"}, {"QDCACHE_TOKEN", " secret \n"}, {"QDCACHE_TLS_CA", "/ca.pem"}}, {}};
  const ClientOptions o = tcp.Resolve();
  CHECK(o.address == "host:7");
  CHECK(o.token == "secret");
  CHECK(o.tls_ca_file == "/ca.pem");
  World both{{{"QDCACHE_SOCKET", "/env.sock"}, {"QDCACHE_ADDR", "host:7"}}, {}};
  ClientOptions refused;
  Status s = ResolveEndpoint(refused, both.Sources());
  CHECK(s.code() == Code::kInvalidArgument);
  CHECK_THAT(s.message(), Catch::Contains("both QDCACHE_ADDR and QDCACHE_SOCKET"));
}

TEST_CASE("endpoint: the per-user socket, else the system service's when only it exists", "[client][endpoint]") {
  CHECK(World{{}, {}}.Resolve().socket_path == "/run/user/1000/qdcached.sock");
  CHECK(World{{}, {"/run/qdcached/qdcached.sock"}}.Resolve().socket_path == "/run/qdcached/qdcached.sock");
  CHECK(World{{}, {"/run/qdcached/qdcached.sock", "/run/user/1000/qdcached.sock"}}.Resolve().socket_path ==
        "/run/user/1000/qdcached.sock");
}

TEST_CASE("endpoint: a token the caller set is kept, and TLS settings are for TCP only", "[client][endpoint]") {
  World w{{{"QDCACHE_TOKEN", "from-env"}, {"QDCACHE_TLS_CA", "/ca.pem"}}, {}};
  ClientOptions tcp;
  tcp.address = "h:1";
  tcp.token = "mine";
  CHECK(w.Resolve(tcp).token == "mine");
  const ClientOptions unix_socket = w.Resolve();
  CHECK(unix_socket.token.empty());
  CHECK(unix_socket.tls_ca_file.empty());
}
