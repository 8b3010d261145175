#include <catch2/catch.hpp>

#include "common/digest.h"

using namespace qdcache;

TEST_CASE("SHA-256 matches the FIPS 180-2 test vector", "[common]") {
  CHECK(ToHex(Sha256("abc")) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST_CASE("length-prefixed fields keep field boundaries in the digest", "[common]") {
  Sha256Hasher a, b;
  a.UpdateField("ab");
  a.UpdateField("c");
  b.UpdateField("a");
  b.UpdateField("bc");
  CHECK(a.Finish() != b.Finish());
}

TEST_CASE("hex round-trips and rejects malformed input", "[common]") {
  std::string bytes;
  REQUIRE(FromHex("00ff10Ab", &bytes));
  CHECK(bytes == std::string("\x00\xff\x10\xab", 4));
  CHECK(ToHex(bytes) == "00ff10ab");
  CHECK_FALSE(FromHex("abc", &bytes));
  CHECK_FALSE(FromHex("zz", &bytes));
}
