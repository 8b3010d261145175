// Token files: format, refusals with line numbers, secrecy, permissions.
#include "auth/token_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>

using namespace qdcache;
using namespace qdcache::auth;

namespace {

constexpr std::string_view kAliceToken = "alice-token-0123456789";
constexpr std::string_view kBobToken = "bob-token-abcdefghijkl";

std::string TwoTokens() {
  std::string text = "# CI tokens\n\n";
  text.append("alice read ").append(kAliceToken).append("\n");
  text.append("   bob\tadmin  ").append(kBobToken).append("   \r\n");
  return text;
}

// Error message of parsing `text`; fails the test if it parses.
std::string ParseError(std::string_view text) {
  Expected<TokenTable> t = TokenTable::Parse(text, "tokens");
  REQUIRE_FALSE(t.ok());
  CHECK(t.status().code() == Code::kInvalidArgument);
  return t.status().message();
}

class TempFile {
 public:
  explicit TempFile(std::string_view contents, mode_t mode) {
    const char* base = std::getenv("TMPDIR");
    path_ = std::string(base && *base ? base : "/tmp") + "/qdcache-tokens-XXXXXX";
    const int fd = ::mkstemp(path_.data());
    REQUIRE(fd >= 0);
    REQUIRE(::write(fd, contents.data(), contents.size()) == static_cast<ssize_t>(contents.size()));
    ::close(fd);
    REQUIRE(::chmod(path_.c_str(), mode) == 0);
  }
  ~TempFile() { ::unlink(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace

TEST_CASE("a token file maps each token to its name and role", "[auth][tokens]") {
  Expected<TokenTable> t = TokenTable::Parse(TwoTokens(), "tokens");
  REQUIRE(t.ok());
  CHECK(t->size() == 2);
  const TokenEntry* alice = t->Find(kAliceToken);
  REQUIRE(alice != nullptr);
  CHECK(alice->name == "alice");
  CHECK(alice->role == Role::kRead);
  const TokenEntry* bob = t->Find(kBobToken);
  REQUIRE(bob != nullptr);
  CHECK(bob->name == "bob");
  CHECK(bob->role == Role::kAdmin);
}

TEST_CASE("a token matches only exactly", "[auth][tokens]") {
  Expected<TokenTable> t = TokenTable::Parse(TwoTokens(), "tokens");
  REQUIRE(t.ok());
  CHECK(t->Find("") == nullptr);
  CHECK(t->Find(kAliceToken.substr(0, kAliceToken.size() - 1)) == nullptr);
  std::string longer(kAliceToken);
  longer.push_back('x');
  CHECK(t->Find(longer) == nullptr);
  CHECK(t->Find("ALICE-TOKEN-0123456789") == nullptr);
  CHECK(TokenTable().Find(kAliceToken) == nullptr);
}

TEST_CASE("malformed token lines are refused with their line number", "[auth][tokens]") {
  CHECK_THAT(ParseError("# c\nalice read\n"),
             Catch::StartsWith("tokens:2: expected 'NAME ROLE TOKEN'"));
  CHECK_THAT(ParseError("alice read tok-0123456789abcdef extra\n"),
             Catch::StartsWith("tokens:1: expected"));
  CHECK_THAT(ParseError("alice owner tok-0123456789abcdef\n"),
             Catch::Contains("tokens:1: unknown role 'owner'"));
  CHECK_THAT(ParseError("al/ice read tok-0123456789abcdef\n"),
             Catch::Contains("tokens:1: the name"));
  CHECK_THAT(ParseError("\n\nalice read short\n"),
             Catch::Contains("tokens:3: the token of 'alice' must be 16-"));
  CHECK_THAT(ParseError(""), Catch::Contains("holds no tokens"));
  CHECK_THAT(ParseError("# only a comment\n"), Catch::Contains("holds no tokens"));
}

TEST_CASE("duplicate names and duplicate tokens are refused", "[auth][tokens]") {
  CHECK_THAT(ParseError("a read tok-0123456789abcdef\na write tok-fedcba9876543210\n"),
             Catch::Contains("tokens:2: the name 'a' is already used on line 1"));
  CHECK_THAT(ParseError("a read tok-0123456789abcdef\nb write tok-0123456789abcdef\n"),
             Catch::Contains("tokens:2: the token of 'b' is the same as that of 'a' (line 1)"));
}

TEST_CASE("errors about a token file never contain a token", "[auth][tokens]") {
  const std::string secret = "s3cret-token-never-printed";
  for (const std::string& text :
       {"a read " + secret + " extra\n", "a owner " + secret + "\n",
        "a read " + secret + "\nb read " + secret + "\n", "a/b read " + secret + "\n"}) {
    CHECK_THAT(ParseError(text), !Catch::Contains(secret));
  }
}

TEST_CASE("a token file readable or writable by group or others is refused", "[auth][tokens]") {
  for (mode_t mode : {0640, 0604, 0620, 0602}) {
    TempFile f(TwoTokens(), mode);
    Expected<TokenTable> t = TokenTable::Load(f.path());
    INFO("mode " << std::oct << mode);
    REQUIRE_FALSE(t.ok());
    CHECK(t.status().code() == Code::kFailedPrecondition);
    CHECK_THAT(t.status().message(), Catch::Contains("chmod 600"));
  }
}

TEST_CASE("a private token file loads", "[auth][tokens]") {
  TempFile f(TwoTokens(), 0600);
  Expected<TokenTable> t = TokenTable::Load(f.path());
  REQUIRE(t.ok());
  CHECK(t->size() == 2);
  TempFile bad("alice read\n", 0400);
  Expected<TokenTable> refused = TokenTable::Load(bad.path());
  REQUIRE_FALSE(refused.ok());
  CHECK_THAT(refused.status().message(), Catch::StartsWith(bad.path() + ":1: "));
}

TEST_CASE("a missing token file or a directory is refused", "[auth][tokens]") {
  Expected<TokenTable> missing = TokenTable::Load("/nonexistent/qdcache/tokens");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.status().code() == Code::kNotFound);
  const std::string dir = std::filesystem::temp_directory_path();
  Expected<TokenTable> directory = TokenTable::Load(dir);
  REQUIRE_FALSE(directory.ok());
}

TEST_CASE("constant-time comparison compares whole digests", "[auth][tokens]") {
  Digest a = Sha256("a"), b = a;
  CHECK(ConstantTimeEqual(a, b));
  b[31] ^= 1;
  CHECK_FALSE(ConstantTimeEqual(a, b));
  b = a;
  b[0] ^= 0x80;
  CHECK_FALSE(ConstantTimeEqual(a, b));
}
