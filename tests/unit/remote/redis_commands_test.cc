// What the Redis backends send and how they read the replies: the wire format
// old and new daemons share, and the contract's two failure codes.
#include "remote/redis_commands.h"

#include <catch2/catch.hpp>

using namespace qdcache;
using namespace qdcache::remote;
using namespace std::chrono_literals;

namespace {

Reply ErrorReply(std::string text) {
  Reply r;
  r.type = Reply::Type::kError;
  r.str = std::move(text);
  return r;
}

Reply StringReply(std::string text) {
  Reply r;
  r.type = Reply::Type::kString;
  r.str = std::move(text);
  return r;
}

const Endpoint kNode{"127.0.0.1", 6379};

}  // namespace

TEST_CASE("a write is SET with EX only when a TTL is set", "[remote][redis]") {
  CHECK(SetCommand("k", "v", 3600s) == std::vector<std::string>{"SET", "k", "v", "EX", "3600"});
  CHECK(SetCommand("k", "v", 0s) == std::vector<std::string>{"SET", "k", "v"});
  CHECK(MGetCommand({"a", "b"}) == std::vector<std::string>{"MGET", "a", "b"});
}

TEST_CASE("error replies about one command are FAILED_PRECONDITION, the others UNAVAILABLE",
          "[remote][redis]") {
  for (const char* one_command :
       {"OOM command not allowed when used memory > 'maxmemory'.",
        "WRONGTYPE Operation against a key holding the wrong kind of value"}) {
    INFO(one_command);
    CHECK(ReplyError(kNode, ErrorReply(one_command)).code() == Code::kFailedPrecondition);
  }
  for (const char* whole_remote :
       {"NOAUTH Authentication required.", "LOADING Redis is loading",
        "CLUSTERDOWN The cluster is down", "MOVED 3999 127.0.0.1:6381", "ERR unknown command"}) {
    INFO(whole_remote);
    CHECK(ReplyError(kNode, ErrorReply(whole_remote)).code() == Code::kUnavailable);
  }
  CHECK(ReplyError(kNode, ErrorReply("MOVED 1 h:1")).message().find("redis-cluster://") !=
        std::string::npos);
}

TEST_CASE("connection failures become UNAVAILABLE, keeping their message", "[remote][redis]") {
  const Status timeout = AsBackendStatus(DeadlineExceeded("redis 127.0.0.1:6379: timed out"));
  CHECK(timeout.code() == Code::kUnavailable);
  CHECK(timeout.message() == "redis 127.0.0.1:6379: timed out");
  CHECK(AsBackendStatus(Status(Code::kPermissionDenied, "AUTH refused")).code() ==
        Code::kUnavailable);
  CHECK(AsBackendStatus(FailedPrecondition("OOM")).code() == Code::kFailedPrecondition);
  CHECK(AsBackendStatus(Status::Ok()).ok());
}

TEST_CASE("GET and MGET replies read as values and misses", "[remote][redis]") {
  CHECK(GetResult("redis x", StringReply(std::string("a\0b", 3))).value() ==
        std::optional<std::string>(std::string("a\0b", 3)));
  CHECK_FALSE(GetResult("redis x", Reply{}).value().has_value());
  Reply integer;
  integer.type = Reply::Type::kInteger;
  CHECK(GetResult("redis x", integer).status().code() == Code::kUnavailable);

  Reply array;
  array.type = Reply::Type::kArray;
  array.elements = {StringReply("v"), Reply{}};
  auto values = MGetResult("redis x", array, 2);
  REQUIRE(values.ok());
  CHECK((*values)[0] == std::optional<std::string>("v"));
  CHECK_FALSE((*values)[1].has_value());
  CHECK(MGetResult("redis x", array, 3).status().code() == Code::kUnavailable);
}
