// ReadSmallFile: what a user-named file may be, and what is refused
// instead of hanging, reading forever or reading as empty.
#include "common/file_read.h"

#include "tests/support/temp_dir.h"

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>

using namespace qdcache;

using Dir = testing::TempDir;

TEST_CASE("a small regular file is read whole", "[common][file_read]") {
  Dir d;
  auto text = ReadSmallFile(d.File("a", "hello\n"), "test file", 100);
  REQUIRE(text.ok());
  CHECK(*text == "hello\n");
  CHECK(ReadSmallFile("/dev/null", "test file", 100).value().empty());  // "no file" spelled as a path
}

TEST_CASE("a missing file, a directory, a FIFO and a file over the cap are refused by name",
          "[common][file_read]") {
  Dir d;
  CHECK(ReadSmallFile(d.path() + "/missing", "test file", 100).status().code() == Code::kNotFound);
  auto dir = ReadSmallFile(d.path(), "test file", 100);
  CHECK(dir.status().code() == Code::kFailedPrecondition);
  CHECK_THAT(dir.status().message(), Catch::Contains("is a directory"));
  const std::string fifo = d.path() + "/fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  auto f = ReadSmallFile(fifo, "test file", 100);  // returns at once: nobody writes to it
  CHECK(f.status().code() == Code::kFailedPrecondition);
  CHECK_THAT(f.status().message(), Catch::Contains("not a regular file"));
  auto big = ReadSmallFile(d.File("big", std::string(101, 'x')), "test file", 100);
  CHECK(big.status().code() == Code::kFailedPrecondition);
  CHECK_THAT(big.status().message(), Catch::Contains("larger than 100 bytes"));
}

TEST_CASE("a device that never ends is refused at the cap, not read into memory", "[common][file_read]") {
  auto zero = ReadSmallFile("/dev/zero", "test file", 1 << 16);
  CHECK(zero.status().code() == Code::kFailedPrecondition);
  CHECK_THAT(zero.status().message(), Catch::Contains("larger than"));
}

TEST_CASE("secret files must not be open to others (or to the group, when private)", "[common][file_read]") {
  Dir d;
  CHECK(ReadSmallFile(d.File("p", "s", 0600), "secret", 100, FileAccess::kPrivate).ok());
  auto group = ReadSmallFile(d.File("g", "s", 0640), "secret", 100, FileAccess::kPrivate);
  CHECK(group.status().code() == Code::kFailedPrecondition);
  CHECK_THAT(group.status().message(), Catch::Contains("chmod 600"));
  CHECK(ReadSmallFile(d.File("g2", "s", 0640), "secret", 100, FileAccess::kNotWorld).ok());
  CHECK_FALSE(ReadSmallFile(d.File("o", "s", 0604), "secret", 100, FileAccess::kNotWorld).ok());
  // A device is never a secret file.
  CHECK_FALSE(ReadSmallFile("/dev/null", "secret", 100, FileAccess::kPrivate).ok());
}
