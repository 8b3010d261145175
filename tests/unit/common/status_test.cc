#include <catch2/catch.hpp>

#include "common/expected.h"
#include "common/status.h"

using namespace qdcache;

TEST_CASE("a default Status is OK and has an empty message", "[common]") {
  Status s;
  CHECK(s.ok());
  CHECK(s.code() == Code::kOk);
  CHECK(s.message().empty());
  CHECK(s.ToString() == "OK");
}

TEST_CASE("an error Status carries its code, message and context", "[common]") {
  Status s = InvalidArgument("bad thing").WithContext("kernel 3");
  CHECK_FALSE(s.ok());
  CHECK(s.code() == Code::kInvalidArgument);
  CHECK(s.ToString() == "INVALID_ARGUMENT: kernel 3: bad thing");
}

TEST_CASE("Expected holds either a value or an error", "[common]") {
  Expected<int> v = 7;
  REQUIRE(v.ok());
  CHECK(*v == 7);
  Expected<int> e = NotFound("nope");
  CHECK_FALSE(e.ok());
  CHECK(e.status().code() == Code::kNotFound);
}

TEST_CASE("Expected built from an OK status is an internal error, never a value", "[common]") {
  Expected<int> e = Status::Ok();
  CHECK_FALSE(e.ok());
  CHECK(e.status().code() == Code::kInternal);
}

namespace {
Expected<int> Twice(Expected<int> in) {
  QDC_ASSIGN_OR_RETURN(int v, std::move(in));
  return v * 2;
}
}  // namespace

TEST_CASE("QDC_ASSIGN_OR_RETURN propagates errors and unwraps values", "[common]") {
  CHECK(*Twice(21) == 42);
  CHECK(Twice(Internal("x")).status().code() == Code::kInternal);
}
