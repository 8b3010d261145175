#include <catch2/catch.hpp>

#include "engine/failure_memory.h"

using namespace qdcache;
using qdcache::engine::FailureMemory;

namespace {

struct FakeClock {
  FailureMemory::Clock::time_point now{};
  std::function<FailureMemory::Clock::time_point()> fn() {
    return [this] { return now; };
  }
};

}  // namespace

TEST_CASE("failure memory keeps worker-killing failures until they expire", "[daemon]") {
  FakeClock clock;
  FailureMemory memory(std::chrono::seconds(60), 16, clock.fn());
  memory.Remember("k", Internal("compiler crashed (SIGSEGV) in compile worker 7"));
  clock.now += std::chrono::seconds(10);
  std::optional<Status> found = memory.Find("k");
  REQUIRE(found.has_value());
  CHECK(found->code() == Code::kInternal);
  CHECK_THAT(found->message(), Catch::Contains("SIGSEGV") && Catch::Contains("10 s ago") &&
                                   Catch::Contains("for 50 s"));
  clock.now += std::chrono::seconds(50);
  CHECK_FALSE(memory.Find("k").has_value());
  CHECK(memory.size() == 0);
}

TEST_CASE("failure memory ignores failures that cost no worker", "[daemon]") {
  FailureMemory memory(std::chrono::seconds(60), 16);
  memory.Remember("bad", InvalidArgument("1:1: expected type"));
  memory.Remember("gone", Cancelled("request cancelled"));
  memory.Remember("slow", DeadlineExceeded("compile exceeded the time limit"));
  memory.Remember("big", ResourceExhausted("compile exceeded the worker memory limit"));
  CHECK_FALSE(memory.Find("bad").has_value());
  CHECK_FALSE(memory.Find("gone").has_value());
  CHECK(memory.Find("slow").has_value());
  CHECK(memory.Find("big").has_value());
}

TEST_CASE("failure memory is bounded, oldest out first", "[daemon]") {
  FakeClock clock;
  FailureMemory memory(std::chrono::seconds(600), 3, clock.fn());
  for (int i = 0; i < 5; ++i) {
    memory.Remember("k" + std::to_string(i), Internal("crash"));
    clock.now += std::chrono::seconds(1);
  }
  CHECK(memory.size() == 3);
  CHECK_FALSE(memory.Find("k0").has_value());
  CHECK_FALSE(memory.Find("k1").has_value());
  CHECK(memory.Find("k4").has_value());
}

TEST_CASE("a zero TTL turns failure memory off", "[daemon]") {
  FailureMemory memory(std::chrono::seconds(0), 16);
  memory.Remember("k", Internal("crash"));
  CHECK_FALSE(memory.Find("k").has_value());
}
