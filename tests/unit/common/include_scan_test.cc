// The include scanner that keeps CUDA C++ programs in a closed world: it must
// find every directive a preprocessor would act on (or refuse the text),
// whatever comments, literals and line splices surround it.
#include <catch2/catch.hpp>

#include "common/include_scan.h"

using namespace qdcache;

namespace {

std::vector<std::string> Names(std::string_view text) {
  Expected<std::vector<IncludeDirective>> found = ScanIncludes(text, "k.cu");
  INFO(found.status().message());
  REQUIRE(found.ok());
  std::vector<std::string> names;
  for (const IncludeDirective& d : *found) names.push_back((d.angled ? "<" : "\"") + d.name);
  return names;
}

std::string Refusal(std::string_view text) {
  Expected<std::vector<IncludeDirective>> found = ScanIncludes(text, "k.cu");
  REQUIRE_FALSE(found.ok());
  CHECK(found.status().code() == Code::kInvalidArgument);
  return found.status().message();
}

}  // namespace

TEST_CASE("include_scan: quoted and angled includes are found with their lines", "[common][include_scan]") {
  Expected<std::vector<IncludeDirective>> found =
      ScanIncludes("#include \"a.cuh\"\n  #  include <cuda_fp16.h>\nint x;\n#include_next \"d/b.h\"\n", "k.cu");
  REQUIRE(found.ok());
  REQUIRE(found->size() == 3);
  CHECK((*found)[0].name == "a.cuh");
  CHECK((*found)[1].angled);
  CHECK((*found)[1].line == 2);
  CHECK((*found)[2].name == "d/b.h");
  CHECK((*found)[2].line == 4);
}

TEST_CASE("include_scan: directives hidden by splices, comments and digraphs are still found",
          "[common][include_scan]") {
  CHECK(Names("#inc\\\nlude \"a.h\"\n") == std::vector<std::string>{"\"a.h"});
  CHECK(Names("/* c */ # /* c */ include \"b.h\"\n") == std::vector<std::string>{"\"b.h"});
  CHECK(Names("/* multi\nline */ #include \"c.h\"\n") == std::vector<std::string>{"\"c.h"});
  CHECK(Names("%:include \"d.h\"\n?\?=include \"e.h\"\n") == std::vector<std::string>{"\"d.h", "\"e.h"});
  CHECK(Names("#if 0\n#include \"skipped.h\"\n#endif\n") == std::vector<std::string>{"\"skipped.h"});
  CHECK(Names("#if __has_include(<cuda_bf16.h>)\n#endif\n") == std::vector<std::string>{"<cuda_bf16.h"});
}

TEST_CASE("include_scan: text in comments and literals is not a directive", "[common][include_scan]") {
  CHECK(Names("// #include \"/etc/passwd\"\n").empty());
  CHECK(Names("/*\n#include \"/etc/passwd\"\n*/\n").empty());
  CHECK(Names("const char* s = R\"x(\n#include \"/etc/passwd\"\n)x\";\n").empty());
  CHECK(Names("int n = 1'000'000; // '\n#include \"a.h\"\n") == std::vector<std::string>{"\"a.h"});
}

TEST_CASE("include_scan: a literal cannot hide a directive from it", "[common][include_scan]") {
  // A raw string holding a quote and a comment opener: a scanner that took
  // the quote as the string's end would think a comment starts, and miss the
  // next line's directive.
  CHECK_THAT(Refusal("const char* s = R\"(a\"/*)\";\n#include \"/etc/passwd\"\n// */\n"),
             Catch::Contains("k.cu:2: #include: \"/etc/passwd\" is an absolute path"));
  // An unterminated character literal ends with its line.
  CHECK_THAT(Refusal("char c = 'x;\n#include \"../x.h\"\n"), Catch::Contains("k.cu:2"));
}

TEST_CASE("include_scan: computed includes and names outside the closed world are refused",
          "[common][include_scan]") {
  CHECK_THAT(Refusal("#define H \"a.h\"\n#include H\n"), Catch::Contains("k.cu:2: #include with a computed operand"));
  CHECK_THAT(Refusal("#if __has_include(H)\n#endif\n"), Catch::Contains("__has_include with a computed operand"));
  CHECK_THAT(Refusal("#include \"a.h\n"), Catch::Contains("without a closing"));
  CHECK_THAT(Refusal("#include </etc/passwd>\n"), Catch::Contains("absolute path"));
  CHECK_THAT(Refusal("#include \"x/../../y.h\"\n"), Catch::Contains("\"..\" component"));
  CHECK_THAT(Refusal("#include \"a\\\\b.h\"\n"), Catch::Contains("backslash"));
}

TEST_CASE("include_scan: header names are plain relative paths", "[common][include_scan]") {
  CHECK(CheckHeaderName("detail/bias.cuh", "h").ok());
  CHECK_FALSE(CheckHeaderName("", "h").ok());
  CHECK_FALSE(CheckHeaderName("/abs.h", "h").ok());
  CHECK_FALSE(CheckHeaderName("./a.h", "h").ok());
  CHECK_FALSE(CheckHeaderName("a//b.h", "h").ok());
  CHECK_FALSE(CheckHeaderName("a/..", "h").ok());
}
