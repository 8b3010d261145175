#include <catch2/catch.hpp>

#include "common/utf8.h"

using qdcache::ValidUtf8;

TEST_CASE("valid UTF-8 passes through unchanged", "[common]") {
  for (const char* s : {"", "saxpy", "Grüße", "カーネル", "\xF0\x9F\x98\x80"}) {
    CHECK(ValidUtf8(s) == s);
  }
}

TEST_CASE("bytes outside well-formed UTF-8 are escaped", "[common]") {
  CHECK(ValidUtf8("k\xFF") == "k\\xFF");
  CHECK(ValidUtf8("\xC0\x80") == "\\xC0\\x80");          // overlong NUL
  CHECK(ValidUtf8("\xED\xA0\x80") == "\\xED\\xA0\\x80");  // surrogate
  CHECK(ValidUtf8("a\xE2\x82") == "a\\xE2\\x82");         // truncated sequence
}
