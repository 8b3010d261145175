// The sizes of PTX variables, checked before ptxas (which wraps them).
#include <catch2/catch.hpp>

#include <string>

#include "compiler/ptx_text.h"
#include "compiler/ptx_variables.h"

using namespace qdcache;
using namespace qdcache::compiler;

namespace {

constexpr std::uint64_t kBound = std::uint64_t{1} << 47;

Status Check(const std::string& body) {
  Expected<std::string> canonical =
      CanonicalPtx(".version 8.0\n.target sm_90\n.address_size 64\n" + body, false);
  REQUIRE(canonical.ok());
  return CheckPtxVariableSizes(*canonical, kBound);
}

}  // namespace

TEST_CASE("PTX variables within the bound pass, whatever their state space, type and shape", "[ptx]") {
  CHECK(Check(".visible .global .align 8 .b8 g[140737488355328];\n").ok());
  CHECK(Check(".global .v4 .f32 v[1024], w[2048];\n.const .u32 c[3] = {1, 2, 3};\n").ok());
  CHECK(Check(".shared .align 4 .b8 s[0x100][0x10];\n").ok());
  CHECK(Check(".extern .shared .align 16 .b8 dynamic[];\n").ok());
  CHECK(Check(".extern .global .b8 far[18446744073709551615];\n").ok());  // declared elsewhere
  CHECK(Check(".visible .entry k(.param .u64 p) {\n.local .align 4 .b8 depot[4096];\nret;\n}\n").ok());
}

TEST_CASE("a PTX variable past the bound is refused naming it, its space and its size", "[ptx]") {
  Status s = Check(".visible .global .align 8 .b8 g[18446744073709551608];\n");
  CHECK(s.code() == Code::kInvalidArgument);
  CHECK_THAT(s.message(), Catch::Contains("PTX variable g (.global) is 18446744073709551608 bytes; an object may be "
                                          "at most 140737488355328 bytes"));
  // The element type, vector width and every dimension count.
  s = Check(".global .v2 .u64 ok[4], big[4294967296][4096];\n");
  CHECK_THAT(s.message(), Catch::Contains("PTX variable big (.global) is 281474976710656 bytes"));
  s = Check(".const .b32 c[0x800000000000];\n");
  CHECK_THAT(s.message(), Catch::Contains("PTX variable c (.const) is 562949953421312 bytes"));
  // Past 2^64: the product saturates instead of wrapping to a small size.
  s = Check(".shared .b64 s[2305843009213693952];\n");
  CHECK_THAT(s.message(), Catch::Contains("PTX variable s (.shared) is at least 2^64 - 1 bytes"));
  s = Check(".global .b8 g[99999999999999999999999];\n");
  CHECK_THAT(s.message(), Catch::Contains("PTX variable g (.global) is at least 2^64 - 1 bytes"));
  s = Check(".visible .entry k() {\n.local .align 8 .b8 depot[281474976710656];\nret;\n}\n");
  CHECK_THAT(s.message(), Catch::Contains("PTX variable depot (.local)"));
}
