#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>

#include "common/paths.h"
#include "tests/support/temp_dir.h"

using namespace qdcache;

using testing::TempDir;

TEST_CASE("a private directory owned by this user with mode 0700 is trusted", "[common]") {
  TempDir s;
  REQUIRE(::chmod(s.path().c_str(), 0700) == 0);
  CHECK(CheckPrivateDir(s.path(), false).ok());
}

TEST_CASE("a private directory open to other users is refused", "[common]") {
  TempDir s;
  REQUIRE(::chmod(s.path().c_str(), 0777) == 0);
  Status st = CheckPrivateDir(s.path(), true);
  CHECK(st.code() == Code::kFailedPrecondition);
  CHECK_THAT(st.message(), Catch::Contains("777"));
}

TEST_CASE("a symlink in place of the private directory is refused", "[common]") {
  TempDir s;
  const std::string link = s.path() + "/link";
  REQUIRE(::symlink(s.path().c_str(), link.c_str()) == 0);
  CHECK_THAT(CheckPrivateDir(link, true).message(), Catch::Contains("not a directory"));
}

TEST_CASE("a missing private directory is created 0700 when asked", "[common]") {
  TempDir s;
  const std::string dir = s.path() + "/fresh";
  CHECK(CheckPrivateDir(dir, false).ok());  // nothing to distrust, nothing made
  CHECK_FALSE(std::filesystem::exists(dir));
  REQUIRE(CheckPrivateDir(dir, true).ok());
  struct stat st {};
  REQUIRE(::stat(dir.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0700);
}

TEST_CASE("the fallback directory is per uid", "[common]") {
  CHECK(PrivateTmpDir() == "/tmp/qdcached-" + std::to_string(::getuid()));
  CHECK(InPrivateTmpDir(PrivateTmpDir() + "/qdcached.sock"));
  CHECK_FALSE(InPrivateTmpDir("/tmp/qdcached-" + std::to_string(::getuid()) + "0/x"));
}
