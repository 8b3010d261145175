// The manifest of `qdcache warm`: JSON lines mapped onto kernel descriptors
// exactly as the `compile` flags are, and every mistake refused with its line.
#include "client/cli/manifest.h"

#include <catch2/catch.hpp>
#include <string>

using namespace qdcache;
using namespace qdcache::cli;

namespace {

std::vector<ManifestEntry> ParseOk(const std::string& text) {
  Expected<std::vector<ManifestEntry>> entries = ParseManifest(text, "m.jsonl", "/base");
  INFO((entries.ok() ? std::string() : entries.status().ToString()));
  REQUIRE(entries.ok());
  return std::move(entries).value();
}

std::string ParseError(const std::string& text) {
  Expected<std::vector<ManifestEntry>> entries = ParseManifest(text, "m.jsonl", "/base");
  REQUIRE_FALSE(entries.ok());
  CHECK(entries.status().code() == Code::kInvalidArgument);
  return entries.status().message();
}

}  // namespace

TEST_CASE("a manifest line carries every compile option into the descriptor", "[cli][manifest]") {
  const std::vector<ManifestEntry> entries = ParseOk(
      R"({"ir": "kernels/saxpy.ll", "target": "cuda:sm_90", "opt": 2, "entries": ["saxpy", "axpy"], )"
      R"("fast_key": "c0ffee", "namespace": "ci", "fast_math": true, "no_fmad": true, "debug": true, )"
      R"("lineinfo": true, "max_registers": 32, "link_libdevice": true, "key_extras": {"frontend": "1.2"}})");
  REQUIRE(entries.size() == 1);
  const ManifestEntry& e = entries[0];
  CHECK(e.line == 1);
  CHECK(e.ir_path == "/base/kernels/saxpy.ll");
  CHECK(e.target == "cuda:sm_90");
  const v1::KernelDescriptor& d = e.descriptor;
  CHECK(d.ir().empty());  // read only when sent
  CHECK(d.target().has_cuda());
  CHECK(d.options().opt_level() == 2);
  CHECK(d.options().fast_math());
  CHECK(d.options().has_fmad());
  CHECK_FALSE(d.options().fmad());
  CHECK(d.options().debug());
  CHECK(d.options().lineinfo());
  CHECK(d.options().max_registers() == 32);
  CHECK(d.options().link_libdevice());
  REQUIRE(d.entry_points_size() == 2);
  CHECK(d.entry_points(1) == "axpy");
  CHECK(d.fast_key() == "\xc0\xff\xee");
  CHECK(d.namespace_() == "ci");
  CHECK(d.key_extras().at("frontend") == "1.2");
}

TEST_CASE("a manifest line with only ir and target leaves every option at its default",
          "[cli][manifest]") {
  const ManifestEntry e = ParseOk(R"({"ir": "/abs/k.ll", "target": "cpu:x86-64"})")[0];
  CHECK(e.ir_path == "/abs/k.ll");  // absolute paths stay
  CHECK_FALSE(e.descriptor.options().has_opt_level());
  CHECK_FALSE(e.descriptor.options().has_fmad());
  CHECK(e.descriptor.fast_key().empty());
  CHECK(e.descriptor.key_extras().empty());
}

TEST_CASE("blank lines and comments are skipped and lines keep their numbers", "[cli][manifest]") {
  const std::vector<ManifestEntry> entries = ParseOk(
      "# kernels for CI\n\n  \n{\"ir\": \"a.ll\", \"target\": \"cpu:x86-64\"}\r\n"
      "   # indented comment\n{\"ir\": \"../b.ll\", \"target\": \"cpu:x86-64\"}");
  REQUIRE(entries.size() == 2);
  CHECK(entries[0].line == 4);
  CHECK(entries[0].ir_path == "/base/a.ll");
  CHECK(entries[1].line == 6);
  CHECK(entries[1].ir_path == "/b.ll");
  CHECK(ParseOk("").empty());
}

TEST_CASE("an unknown key is refused with its line, so a typo cannot change a key",
          "[cli][manifest]") {
  const std::string why = ParseError(
      "{\"ir\": \"a.ll\", \"target\": \"cpu:x86-64\"}\n{\"ir\": \"a.ll\", \"target\": "
      "\"cpu:x86-64\", \"optt\": 2}\n");
  CHECK_THAT(why, Catch::StartsWith("m.jsonl:2: unknown key \"optt\""));
}

TEST_CASE("malformed manifest lines are refused with their line and reason", "[cli][manifest]") {
  struct Case {
    const char* line;
    const char* why;
  };
  const Case cases[] = {
      {R"({"ir": "a.ll", "target": "cpu:x86-64")", "not JSON"},
      {R"(["a.ll", "cpu:x86-64"])", "not a JSON object"},
      {R"({"target": "cpu:x86-64"})", "\"ir\" is missing"},
      {R"({"ir": "a.ll"})", "\"target\" is missing"},
      {R"({"ir": "", "target": "cpu:x86-64"})", "\"ir\" is empty"},
      {R"({"ir": 7, "target": "cpu:x86-64"})", "\"ir\" must be a string"},
      {R"({"ir": "a.ll", "target": "gpu:9000"})", ""},
      {R"({"ir": "a.ll", "target": "cpu:x86-64", "opt": 4})", "\"opt\" must be an integer 0-3"},
      {R"({"ir": "a.ll", "target": "cpu:x86-64", "opt": "3"})", "\"opt\" must be an integer 0-3"},
      {R"({"ir": "a.ll", "target": "cpu:x86-64", "opt": 2.5})", "\"opt\" must be an integer 0-3"},
      {R"({"ir": "a.ll", "target": "cuda:sm_90", "max_registers": 256})",
       "\"max_registers\" must be"},
      {R"({"ir": "a.ll", "target": "cpu:x86-64", "fast_math": "yes"})",
       "\"fast_math\" must be true or false"},
      {R"({"ir": "a.ll", "target": "cpu:x86-64", "entries": "saxpy"})",
       "\"entries\" must be an array"},
      {R"({"ir": "a.ll", "target": "cpu:x86-64", "entries": [1]})", "\"entries\" must be an array"},
      {R"({"ir": "a.ll", "target": "cpu:x86-64", "fast_key": "xyz"})", "fast key \"xyz\""},
      {R"({"ir": "a.ll", "target": "cpu:x86-64", "namespace": "ci"})",
       "a namespace needs a fast key"},
      {R"({"ir": "a.ll", "target": "cpu:x86-64", "key_extras": {"v": 1}})",
       "\"key_extras.v\" must be a string"},
      {R"({"ir": "a.ll", "target": "cpu:x86-64", "key_extras": ["v"]})",
       "\"key_extras\" must be an object"},
  };
  for (const Case& c : cases) {
    INFO(c.line);
    const std::string why = ParseError("# first\n" + std::string(c.line) + "\n");
    CHECK_THAT(why, Catch::StartsWith("m.jsonl:2: ") && Catch::Contains(c.why));
  }
}
