#include <catch2/catch.hpp>

#include "common/units.h"

using namespace qdcache;

TEST_CASE("byte sizes take binary K/M/G/T suffixes", "[common]") {
  CHECK(*ParseByteSize("123") == 123);
  CHECK(*ParseByteSize("123B") == 123);
  CHECK(*ParseByteSize("1K") == 1024);
  CHECK(*ParseByteSize("1M") == 1048576);
  CHECK(*ParseByteSize("10G") == 10ull << 30);
  CHECK(*ParseByteSize("2GiB") == 2ull << 30);
  CHECK(*ParseByteSize("5B") == 5);
}

TEST_CASE("malformed or overflowing sizes are refused", "[common]") {
  for (const char* bad : {"", "M", "1X", "1KX", "-1", "99999999999999999999", "20000000T"}) {
    INFO(bad);
    CHECK_FALSE(ParseByteSize(bad).ok());
  }
}

TEST_CASE("a size without a unit is refused with the likely meaning", "[common]") {
  // 10 bytes as a cache cap would evict every artifact at once, silently.
  Expected<std::uint64_t> bare = ParseSizeWithUnit("10");
  REQUIRE_FALSE(bare.ok());
  CHECK(bare.status().code() == Code::kInvalidArgument);
  CHECK_THAT(bare.status().message(), Catch::Contains("did you mean 10G?") && Catch::Contains("10B"));
  CHECK(*ParseSizeWithUnit("10B") == 10);
  CHECK(*ParseSizeWithUnit("10G") == 10ull << 30);
  CHECK(*ParseSizeWithUnit("0") == 0);
  CHECK_FALSE(ParseSizeWithUnit("12Q").ok());
}

TEST_CASE("durations take s/m/h/d/w units", "[common]") {
  CHECK(ParseDuration("30")->count() == 30);
  CHECK(ParseDuration("2m")->count() == 120);
  CHECK(ParseDuration("1d")->count() == 86400);
  CHECK(ParseDuration("1w")->count() == 604800);
  CHECK_FALSE(ParseDuration("1y").ok());
  CHECK_FALSE(ParseDuration("h").ok());
}

TEST_CASE("sizes format to the shortest exact spelling that parses back", "[common]") {
  CHECK(FormatByteSize(0) == "0");
  CHECK(FormatByteSize(1536) == "1536B");
  CHECK(FormatByteSize(1024) == "1K");
  CHECK(FormatByteSize(10ull << 30) == "10G");
  CHECK(FormatByteSize(3ull << 40) == "3T");
  for (std::uint64_t bytes : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{1536}, std::uint64_t{256} << 20,
                              std::uint64_t{2047} << 20, std::uint64_t{UINT64_MAX}}) {
    CHECK(*ParseByteSize(FormatByteSize(bytes)) == bytes);
  }
}

TEST_CASE("durations format to the shortest exact spelling that parses back", "[common]") {
  CHECK(FormatDuration(std::chrono::seconds(0)) == "0s");
  CHECK(FormatDuration(std::chrono::seconds(90)) == "90s");
  CHECK(FormatDuration(std::chrono::seconds(600)) == "10m");
  CHECK(FormatDuration(std::chrono::seconds(7200)) == "2h");
  CHECK(FormatDuration(std::chrono::seconds(14 * 86400)) == "2w");
  for (int s : {0, 1, 59, 61, 3600, 86401}) {
    CHECK(*ParseDuration(FormatDuration(std::chrono::seconds(s))) == std::chrono::seconds(s));
  }
}

TEST_CASE("millisecond durations take ms as well as s/m/h/d/w", "[common]") {
  CHECK(ParseDurationMillis("200ms")->count() == 200);
  CHECK(ParseDurationMillis("2s")->count() == 2000);
  CHECK(ParseDurationMillis("3")->count() == 3000);
  CHECK(ParseDurationMillis("1m")->count() == 60000);
  CHECK_FALSE(ParseDurationMillis("ms").ok());
  CHECK_FALSE(ParseDurationMillis("5xms").ok());
  CHECK_FALSE(ParseDurationMillis("1y").ok());
}

TEST_CASE("counts are whole numbers inside their range, digits only", "[common]") {
  CHECK(ParseCount("0", 0, 3).value() == 0);
  CHECK(ParseCount("3", 0, 3).value() == 3);
  CHECK(ParseCount("18446744073709551615", 0, UINT64_MAX).value() == UINT64_MAX);
  for (const char* bad : {"", "4", "-1", "+1", " 1", "1 ", "1.0", "0x1", "18446744073709551616"}) {
    INFO(bad);
    const auto parsed = ParseCount(bad, 0, 3);
    REQUIRE(!parsed.ok());
    CHECK(parsed.status().message().find("expected a whole number from 0 to 3") != std::string::npos);
  }
}
