// How a short artifact key is resolved once the daemon has listed the keys
// it starts (client/commands_json.h): one, none, or several to choose from.
#include <catch2/catch.hpp>

#include "client/commands_json.h"
#include "common/digest.h"

using namespace qdcache;

namespace {

v1::ListResponse Listed(std::size_t n) {
  v1::ListResponse response;
  for (std::size_t i = 0; i < n; ++i) {
    v1::EntrySummary* e = response.add_entries();
    e->set_artifact_key(std::string(31, '\xab') + static_cast<char>(i));
    e->set_target("cpu:x86-64");
  }
  return response;
}

}  // namespace

TEST_CASE("a short key names its one listed key, none is NOT_FOUND", "[client][key-prefix]") {
  Expected<std::string> one = client::UniqueKey("abab", Listed(1));
  REQUIRE(one.ok());
  CHECK(*one == std::string(31, '\xab') + '\0');
  CHECK(client::UniqueKey("abab", Listed(0)).status().code() == Code::kNotFound);
}

TEST_CASE("an ambiguous short key is refused listing the candidates", "[client][key-prefix]") {
  Expected<std::string> two = client::UniqueKey("abab", Listed(2));
  REQUIRE_FALSE(two.ok());
  CHECK(two.status().code() == Code::kInvalidArgument);
  CHECK_THAT(two.status().message(), Catch::Contains("abab is ambiguous") &&
                                         Catch::Contains(ToHex(std::string(31, '\xab') + '\1') + "  cpu:x86-64"));
  Expected<std::string> many = client::UniqueKey("abab", Listed(client::kMaxKeyCandidates + 1));
  REQUIRE_FALSE(many.ok());
  CHECK_THAT(many.status().message(), Catch::EndsWith("\n  ..."));
}
