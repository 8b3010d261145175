#include <catch2/catch.hpp>

#include "common/nearest_name.h"

using namespace qdcache;

TEST_CASE("the nearest name is offered for a plausible typo only", "[common]") {
  const std::vector<std::string> commands = {"compile", "explain", "stats", "ls", "inspect"};
  CHECK(NearestName("compil", commands) == std::optional<std::string>("compile"));
  CHECK(NearestName("status", commands) == std::optional<std::string>("stats"));
  CHECK(NearestName("sl", commands) == std::optional<std::string>("ls"));
  CHECK_FALSE(NearestName("frobnicate", commands).has_value());
  CHECK_FALSE(NearestName("x", {}).has_value());
  // Ties go to the first candidate.
  CHECK(NearestName("ab", {"xb", "ax"}) == std::optional<std::string>("xb"));
}
