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

TEST_CASE("PTX variable sizes are read through attributes, initializers and every literal form", "[ptx]") {
  // NVRTC writes every __managed__ variable with an attribute before its type.
  Status s = Check(".visible .global .attribute(.managed) .align 8 .b8 m[18446744073709551608];\n");
  CHECK_THAT(s.message(), Catch::Contains("PTX variable m (.global) is 18446744073709551608 bytes"));
  // Declarators after one with an initializer, which may span lines.
  s = Check(".global .u32 a[2] = {1,\n2}, b[281474976710656];\n");
  CHECK_THAT(s.message(), Catch::Contains("PTX variable b (.global) is 1125899906842624 bytes"));
  s = Check(".global .u32 a = 1, b[281474976710656];\n");
  CHECK_THAT(s.message(), Catch::Contains("PTX variable b (.global)"));
  CHECK(Check(".global .u32 a[2] = {1, 2}, b[4];\n.global .b8 c[3] = {1, 2, 3};\n").ok());
  // Octal, binary, a U suffix and constant expressions.
  CHECK(Check(".global .b8 octal[01000000000000000];\n").ok());  // 8^15 = 2^45 bytes
  s = Check(".global .b8 binary[0b1000000000000000000000000000000000000000000000001];\n");
  CHECK_THAT(s.message(), Catch::Contains("PTX variable binary (.global) is 281474976710657 bytes"));
  s = Check(".global .b8 suffixed[4611686018427387904U];\n");
  CHECK_THAT(s.message(), Catch::Contains("is 4611686018427387904 bytes"));
  s = Check(".global .b8 shifted[1<<62];\n");
  CHECK_THAT(s.message(), Catch::Contains("PTX variable shifted (.global) is 4611686018427387904 bytes"));
  s = Check(".global .b64 product[(1<<40)*(1<<30)];\n");
  CHECK_THAT(s.message(), Catch::Contains("is at least 2^64 - 1 bytes"));
  CHECK(Check(".global .b8 small[(16+16)*4/2-1];\n").ok());
  // What cannot be read is refused, not guessed.
  s = Check(".global .b8 g[SIZE];\n");
  CHECK(s.code() == Code::kInvalidArgument);
  CHECK_THAT(s.message(), Catch::Contains("PTX variable g (.global): cannot read its size 'SIZE'"));
  CHECK(Check(".global .b8 g[4-8];\n").code() == Code::kInvalidArgument);
}

TEST_CASE("many PTX variables within the bound are refused once their state space's total is past it", "[ptx]") {
  std::string body;
  for (int i = 0; i < 3; ++i) body += ".global .b8 g" + std::to_string(i) + "[70368744177664];\n";  // 2^46 each
  const Status s = Check(body);
  CHECK(s.code() == Code::kInvalidArgument);
  CHECK_THAT(s.message(), Catch::Contains("the PTX's .global variables total 211106232532992 bytes (reached at g2)"));
  CHECK(Check(".global .b8 g[70368744177664];\n.shared .b8 s[70368744177664];\n.const .b8 c[70368744177664];\n")
            .ok());
  // A parameterized name declares that many variables.
  CHECK_THAT(Check(".global .b64 p<3>[8796093022208];\n").message(), Catch::Contains("total"));
}
