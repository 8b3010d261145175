// OutputFile: an output the user names is written like `cp` writes it, and
// nothing that is not a regular file is ever replaced.
#include "common/output_file.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "tests/support/temp_dir.h"

using namespace qdcache;
using testing::TempDir;

namespace {

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

struct stat Lstat(const std::string& path) {
  struct stat st {};
  REQUIRE(::lstat(path.c_str(), &st) == 0);
  return st;
}

// Names in `dir` other than `keep`: temporary files left behind.
std::vector<std::string> Others(const std::string& dir, std::initializer_list<std::string> keep) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (std::find(keep.begin(), keep.end(), name) == keep.end()) out.push_back(name);
  }
  return out;
}

bool Root() { return ::geteuid() == 0; }

// A character device node like /dev/null or /dev/full, in the scratch
// directory. Only root may make one.
std::string DeviceNode(const TempDir& d, const std::string& name, unsigned minor) {
  const std::string p = d / name;
  REQUIRE(::mknod(p.c_str(), S_IFCHR | 0666, makedev(1, minor)) == 0);
  return p;
}

}  // namespace

TEST_CASE("a new output is created with the umask's mode and no temporary file stays", "[common][output]") {
  TempDir d;
  REQUIRE(WriteOutputFile(d / "k.cubin", "payload").ok());
  CHECK(Slurp(d / "k.cubin") == "payload");
  const mode_t umask = ::umask(0);
  ::umask(umask);
  CHECK((Lstat(d / "k.cubin").st_mode & 07777) == (0666 & ~umask));
  CHECK(Others(d.path(), {"k.cubin"}).empty());
}

TEST_CASE("an existing regular file is replaced whole and keeps its mode", "[common][output]") {
  TempDir d;
  const std::string p = d.File("k.so", "old content that is longer", 0750);
  REQUIRE(WriteOutputFile(p, "new").ok());
  CHECK(Slurp(p) == "new");
  CHECK((Lstat(p).st_mode & 07777) == 0750);
  CHECK(Others(d.path(), {"k.so"}).empty());
}

TEST_CASE("as root, a replaced file keeps its owner", "[common][output]") {
  if (!Root()) {
    WARN("skipped: needs root to give a file to another user");
    return;
  }
  TempDir d;
  const std::string p = d.File("k.so", "old", 0640);
  REQUIRE(::chown(p.c_str(), 65534, 65534) == 0);
  REQUIRE(WriteOutputFile(p, "new").ok());
  CHECK(Slurp(p) == "new");
  CHECK(Lstat(p).st_uid == 65534);
  CHECK(Lstat(p).st_gid == 65534);
  CHECK((Lstat(p).st_mode & 07777) == 0640);
}

TEST_CASE("a file with other hard links is written in place: every name sees the new bytes",
          "[common][output]") {
  TempDir d;
  const std::string p = d.File("k.cubin", "old old old");
  REQUIRE(::link(p.c_str(), (d / "other-name").c_str()) == 0);
  const ino_t inode = Lstat(p).st_ino;
  auto out = OutputFile::Open(p);
  REQUIRE(out.ok());
  CHECK((*out)->mode() == OutputFile::Mode::kStagedInPlace);
  REQUIRE((*out)->Write("new").ok());
  CHECK(Slurp(p) == "old old old");  // nothing changes before the commit
  REQUIRE((*out)->Commit().ok());
  out->reset();
  CHECK(Lstat(p).st_ino == inode);
  CHECK(Slurp(d / "other-name") == "new");
  CHECK(Others(d.path(), {"k.cubin", "other-name"}).empty());
}

TEST_CASE("a symbolic link is followed: its target is written and the link stays", "[common][output]") {
  TempDir d;
  std::filesystem::create_directory(d / "real");
  const std::string target = d.File("real/k.cubin", "old");
  REQUIRE(::symlink("real/k.cubin", (d / "link").c_str()) == 0);
  REQUIRE(::symlink("link", (d / "link2").c_str()) == 0);  // a chain of two
  REQUIRE(WriteOutputFile(d / "link2", "new").ok());
  CHECK(S_ISLNK(Lstat(d / "link").st_mode));
  CHECK(S_ISLNK(Lstat(d / "link2").st_mode));
  CHECK(Slurp(target) == "new");
  CHECK(Others(d / "real", {"k.cubin"}).empty());

  SECTION("a dangling link creates its target") {
    REQUIRE(::symlink("real/absent.so", (d / "dangling").c_str()) == 0);
    REQUIRE(WriteOutputFile(d / "dangling", "so").ok());
    CHECK(Slurp(d / "real/absent.so") == "so");
    CHECK(S_ISLNK(Lstat(d / "dangling").st_mode));
  }
  SECTION("a loop of links is refused") {
    REQUIRE(::symlink("loop-b", (d / "loop-a").c_str()) == 0);
    REQUIRE(::symlink("loop-a", (d / "loop-b").c_str()) == 0);
    Status s = WriteOutputFile(d / "loop-a", "x");
    CHECK(s.code() == Code::kFailedPrecondition);
    CHECK_THAT(s.message(), Catch::Contains("symbolic links"));
  }
}

TEST_CASE("a FIFO is written in place for the process reading it, and stays a FIFO", "[common][output]") {
  TempDir d;
  const std::string fifo = d / "fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  std::string received;
  std::thread reader([&] { received = Slurp(fifo); });  // Open blocks until this opens it
  Status s = WriteOutputFile(fifo, std::string(200000, 'c'));  // more than a pipe buffer
  reader.join();
  REQUIRE(s.ok());
  CHECK(received == std::string(200000, 'c'));
  CHECK(S_ISFIFO(Lstat(fifo).st_mode));
  CHECK(Others(d.path(), {"fifo"}).empty());
}

TEST_CASE("a unix socket is written to through a connection", "[common][output]") {
  TempDir d;
  const std::string path = d / "sock";
  const int listener = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  REQUIRE(listener >= 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strcpy(addr.sun_path, path.c_str());
  REQUIRE(::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  REQUIRE(::listen(listener, 1) == 0);
  std::string received;
  std::thread server([&] {
    const int c = ::accept(listener, nullptr, nullptr);
    char buf[256];
    for (ssize_t n; (n = ::read(c, buf, sizeof buf)) > 0;) received.append(buf, static_cast<std::size_t>(n));
    ::close(c);
  });
  Status s = WriteOutputFile(path, "over the socket");
  server.join();
  ::close(listener);
  REQUIRE(s.ok());
  CHECK(received == "over the socket");
  CHECK(S_ISSOCK(Lstat(path).st_mode));
}

TEST_CASE("/dev/fd/N writes to the descriptor and never replaces the file behind it", "[common][output]") {
  TempDir d;
  SECTION("a pipe") {
    int fds[2];
    REQUIRE(::pipe(fds) == 0);
    REQUIRE(WriteOutputFile("/dev/fd/" + std::to_string(fds[1]), "through the pipe").ok());
    ::close(fds[1]);
    char buf[64] = {};
    CHECK(std::string(buf, static_cast<std::size_t>(::read(fds[0], buf, sizeof buf))) == "through the pipe");
    ::close(fds[0]);
  }
  SECTION("a regular file opened by the caller, as a shell's redirection") {
    const std::string p = d.File("redirected", "");
    const int fd = ::open(p.c_str(), O_WRONLY | O_APPEND);
    REQUIRE(fd >= 0);
    const ino_t inode = Lstat(p).st_ino;
    REQUIRE(WriteOutputFile("/proc/self/fd/" + std::to_string(fd), "appended").ok());
    ::close(fd);
    CHECK(Lstat(p).st_ino == inode);
    CHECK(Slurp(p) == "appended");
  }
  SECTION("a descriptor that is not open") {
    CHECK(WriteOutputFile("/dev/fd/987", "x").code() == Code::kFailedPrecondition);
  }
}

TEST_CASE("as root, a character device stays a device: a null node swallows the bytes",
          "[common][output]") {
  if (!Root()) {
    WARN("skipped: needs root to make a device node (mknod)");
    return;
  }
  TempDir d;
  const std::string node = DeviceNode(d, "null", 3);
  REQUIRE(WriteOutputFile(node, std::string(5000, 'x')).ok());
  const struct stat st = Lstat(node);
  CHECK(S_ISCHR(st.st_mode));
  CHECK(st.st_rdev == makedev(1, 3));
  CHECK(Others(d.path(), {"null"}).empty());
}

TEST_CASE("as root, a full device's error is reported and the node stays", "[common][output]") {
  if (!Root()) {
    WARN("skipped: needs root to make a device node (mknod)");
    return;
  }
  TempDir d;
  const std::string node = DeviceNode(d, "full", 7);
  Status s = WriteOutputFile(node, "x");
  CHECK(s.code() == Code::kResourceExhausted);
  CHECK_THAT(s.message(), Catch::Contains(node));
  CHECK(S_ISCHR(Lstat(node).st_mode));
}

TEST_CASE("a directory, a missing directory and a block device are refused, untouched",
          "[common][output]") {
  TempDir d;
  std::filesystem::create_directory(d / "dir");
  Status dir = WriteOutputFile(d / "dir", "x");
  CHECK(dir.code() == Code::kFailedPrecondition);
  CHECK_THAT(dir.message(), Catch::Contains("is a directory"));
  CHECK(std::filesystem::is_empty(d / "dir"));

  Status missing = WriteOutputFile(d / "nodir/k.cubin", "x");
  CHECK(missing.code() == Code::kNotFound);
  CHECK_THAT(missing.message(), Catch::Contains("does not exist"));

  if (Root()) {
    const std::string block = d / "block";
    REQUIRE(::mknod(block.c_str(), S_IFBLK | 0600, makedev(7, 200)) == 0);
    Status s = WriteOutputFile(block, "x");
    CHECK(s.code() == Code::kFailedPrecondition);
    CHECK_THAT(s.message(), Catch::Contains("block device"));
    CHECK(S_ISBLK(Lstat(block).st_mode));
  }
  CHECK(Others(d.path(), {"dir", "block"}).empty());
}

TEST_CASE("an abandoned output leaves the destination as it was and no temporary file", "[common][output]") {
  TempDir d;
  const std::string p = d.File("k.cubin", "the old artifact");
  {
    auto out = OutputFile::Open(p);
    REQUIRE(out.ok());
    REQUIRE((*out)->Write("half of a new").ok());
  }  // no Commit: a failed export, a compile error after opening
  CHECK(Slurp(p) == "the old artifact");
  CHECK(Others(d.path(), {"k.cubin"}).empty());
}

TEST_CASE("a file the user may not write is refused, even where a rename could replace it",
          "[common][output]") {
  if (Root()) {
    WARN("skipped: root may write any file");
    return;
  }
  TempDir d;
  const std::string p = d.File("readonly.so", "keep", 0444);
  Status s = WriteOutputFile(p, "x");
  CHECK(s.code() == Code::kPermissionDenied);
  CHECK(Slurp(p) == "keep");
}

TEST_CASE("a writable file in a directory that takes no new files is written in place",
          "[common][output]") {
  if (Root()) {
    WARN("skipped: root may create files in any directory");
    return;
  }
  TempDir d;
  std::filesystem::create_directory(d / "locked");
  const std::string p = d.File("locked/k.so", "old");
  REQUIRE(::chmod((d / "locked").c_str(), 0555) == 0);
  Status s = WriteOutputFile(p, "new");
  ::chmod((d / "locked").c_str(), 0755);
  REQUIRE(s.ok());
  CHECK(Slurp(p) == "new");
}
