// How `qdcache stats` shows the counters: per-level hits, misses and hit
// rates, every field in JSON, aligned human output.
#include "client/cli/stats_view.h"

#include <catch2/catch.hpp>
#include <map>
#include <sstream>
#include <string>

using namespace qdcache;
using namespace qdcache::cli;

namespace {

v1::Stats SomeStats() {
  v1::Stats s;
  s.set_version("9.9.9");
  s.set_alias_hits(3);
  s.set_misses(1);
  s.set_hits(9);
  s.set_artifact_misses(3);
  s.set_stage_hits(1);
  s.set_stage_misses(0);
  s.set_remote_state("off");
  s.set_compiles(3);
  s.set_compile_seconds(1.5);
  s.set_compile_seconds_saved(4.25);
  s.set_queue_rejections(7);
  s.set_total_bytes(1 << 20);
  s.set_max_bytes(4 << 20);
  return s;
}

}  // namespace

TEST_CASE("stats levels pair each level's hits with its misses", "[cli][stats]") {
  const std::vector<CacheLevel> levels = CacheLevels(SomeStats());
  REQUIRE(levels.size() == 4);
  CHECK(levels[0].name == "alias");
  CHECK(levels[0].hits == 3);
  CHECK(levels[0].misses == 1);
  CHECK(levels[0].hit_rate() == Approx(0.75));
  CHECK(levels[1].name == "artifact");
  CHECK(levels[1].hits == 9);
  CHECK(levels[1].misses == 3);
  CHECK(levels[2].name == "stage");
  CHECK(levels[2].hit_rate() == Approx(1.0));
  CHECK(levels[3].name == "remote");
  CHECK_FALSE(levels[3].enabled);
  CHECK_FALSE(levels[3].hit_rate().has_value());  // nothing looked up yet: no rate, not 0%
}

TEST_CASE("stats JSON holds every field and the per-level view", "[cli][stats]") {
  const v1::Stats s = SomeStats();
  const nlohmann::json j = StatsJson(s);
  for (int i = 0; i < s.GetDescriptor()->field_count(); ++i) {
    INFO(s.GetDescriptor()->field(i)->name());
    CHECK(j.contains(s.GetDescriptor()->field(i)->name()));
  }
  CHECK(j["compile_seconds_saved"] == 4.25);
  CHECK(j["artifact_misses"] == 3);
  CHECK(j["version"] == "9.9.9");
  CHECK(j["levels"]["artifact"]["hits"] == 9);
  CHECK(j["levels"]["artifact"]["misses"] == 3);
  CHECK(j["levels"]["artifact"]["hit_rate"] == Approx(0.75));
  CHECK(j["levels"]["remote"]["hit_rate"].is_null());
  CHECK(j["levels"]["remote"]["enabled"] == false);
}

TEST_CASE("stats text shows the levels as an aligned table with rates", "[cli][stats]") {
  const std::string text = StatsText(SomeStats(), "unix:/x.sock");
  CHECK_THAT(text, Catch::StartsWith("qdcached 9.9.9 at unix:/x.sock\n"));
  std::istringstream lines(text);
  std::size_t hits_column = std::string::npos;
  std::map<std::string, std::string> rows;
  for (std::string line; std::getline(lines, line);) {
    if (line.find("cache level") != std::string::npos) hits_column = line.find("hits") + 4;
    std::istringstream words(line);
    std::string first;
    words >> first;
    rows[first] = line;
  }
  REQUIRE(hits_column != std::string::npos);
  // The counts end in the column where "hits" ends.
  CHECK(rows["alias"].substr(hits_column - 1, 1) == "3");
  CHECK(rows["artifact"].substr(hits_column - 1, 1) == "9");
  CHECK_THAT(rows["alias"], Catch::EndsWith("75.0%"));
  CHECK_THAT(rows["artifact"], Catch::EndsWith("75.0%"));
  CHECK_THAT(rows["remote"], Catch::Contains("(remote off)"));
  CHECK_THAT(text, Catch::Contains("saved by hits") && Catch::Contains("4.250 s"));
  CHECK_THAT(text, Catch::Contains("1.0 MiB of 4.0 MiB cap (25.0%)"));
  // Counters without a place of their own are still listed.
  CHECK_THAT(rows["queue_rejections"], Catch::EndsWith(" 7"));
}
