// JSON log lines (daemon/log_format.h): one object per line, any bytes.
#include "daemon/log_format.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using namespace qdcache::daemon;

TEST_CASE("a JSON log line is one object with an RFC 3339 UTC timestamp", "[daemon][log]") {
  LogLine line;
  line.time = std::chrono::system_clock::time_point(std::chrono::milliseconds(1'700'000'000'123));
  line.level = "warn";
  line.logger = "qdcached";
  line.message = "hello";
  line.pid = 42;
  line.thread = 43;
  std::string out;
  AppendJsonLogLine(line, out);
  REQUIRE(out.back() == '\n');
  CHECK(out.find('\n') == out.size() - 1);
  nlohmann::json j = nlohmann::json::parse(out);
  CHECK(j["ts"] == "2023-11-14T22:13:20.123Z");
  CHECK(j["level"] == "warn");
  CHECK(j["logger"] == "qdcached");
  CHECK(j["msg"] == "hello");
  CHECK(j["pid"] == 42);
  CHECK(j["thread"] == 43);
}

TEST_CASE("every byte of a log message survives as valid JSON", "[daemon][log]") {
  std::string all;
  for (int b = 1; b < 256; ++b) all += static_cast<char>(b);
  const std::string message =
      "quote\" backslash\\ newline\n tab\t nul" + std::string(1, '\0') + " bad\xff\xc3 " + all;
  std::string out;
  AppendJsonString(message, out);
  CHECK(out.find('\n') == std::string::npos);
  nlohmann::json j;
  REQUIRE_NOTHROW(j = nlohmann::json::parse(out));  // nlohmann refuses invalid UTF-8
  const std::string back = j.get<std::string>();
  CHECK(back.rfind(
            "quote\" backslash\\ newline\n tab\t nul" + std::string(1, '\0') + " bad\\xFF\\xC3 ",
            0) == 0);
}

TEST_CASE("valid UTF-8 in a log message is kept as is", "[daemon][log]") {
  std::string out;
  AppendJsonString("caf\xc3\xa9 \xe2\x9c\x93", out);
  CHECK(out == "\"caf\xc3\xa9 \xe2\x9c\x93\"");
}
