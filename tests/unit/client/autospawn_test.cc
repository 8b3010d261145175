// Per-user mode's building blocks: the spawn decision, socket probing, the
// start lock, finding the daemon, and refusing a shared socket directory.
#include "client/autospawn.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>

#include "client/daemon_launcher.h"
#include "client/file_lock.h"
#include "client/socket_probe.h"

using namespace qdcache;
using namespace qdcache::client;

namespace {

// Sets (or, with nullopt, removes) an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) {
      ::setenv(name, value->c_str(), 1);
    } else {
      ::unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (old_) {
      ::setenv(name_, old_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// A private (0700) directory, removed with its contents.
class ScratchDir {
 public:
  ScratchDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "qdcache-unit-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// A unix socket bound at `path`; listening if asked. Closed on destruction
// (the file stays: a stale socket).
class BoundSocket {
 public:
  BoundSocket(const std::string& path, bool listen)
      : fd_(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    path.copy(addr.sun_path, sizeof addr.sun_path - 1);
    if (fd_ < 0 || ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        (listen && ::listen(fd_, 4) != 0)) {
      throw std::runtime_error("cannot bind " + path);
    }
  }
  ~BoundSocket() { ::close(fd_); }

 private:
  int fd_;
};

void WriteFile(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

}  // namespace

TEST_CASE("an explicit spawn choice wins over QDCACHE_AUTOSPAWN, which wins over the default",
          "[client][autospawn]") {
  {
    ScopedEnv env("QDCACHE_AUTOSPAWN", std::nullopt);
    CHECK(*ResolveAutospawn(std::nullopt, true) == true);
    CHECK(*ResolveAutospawn(std::nullopt, false) == false);
  }
  {
    ScopedEnv env("QDCACHE_AUTOSPAWN", "0");
    CHECK(*ResolveAutospawn(std::nullopt, true) == false);
    CHECK(*ResolveAutospawn(true, false) == true);
  }
  {
    ScopedEnv env("QDCACHE_AUTOSPAWN", "1");
    CHECK(*ResolveAutospawn(std::nullopt, false) == true);
    CHECK(*ResolveAutospawn(false, true) == false);
  }
  {
    ScopedEnv env("QDCACHE_AUTOSPAWN", "");
    CHECK(*ResolveAutospawn(std::nullopt, true) == true);  // empty: unset
  }
}

TEST_CASE("an unrecognised QDCACHE_AUTOSPAWN is an error, not a guess", "[client][autospawn]") {
  ScopedEnv env("QDCACHE_AUTOSPAWN", "maybe");
  Expected<bool> r = ResolveAutospawn(std::nullopt, true);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == Code::kInvalidArgument);
  CHECK_THAT(r.status().message(), Catch::Contains("QDCACHE_AUTOSPAWN=maybe"));
}

TEST_CASE("probing tells a missing socket, a stale one and a listening one apart",
          "[client][autospawn]") {
  ScratchDir dir;
  CHECK(*ProbeSocket(dir / "none.sock") == SocketState::kMissing);
  CHECK(*ProbeSocket(dir / "no-such-dir/x.sock") == SocketState::kMissing);
  { BoundSocket stale(dir / "stale.sock", /*listen=*/false); }
  CHECK(*ProbeSocket(dir / "stale.sock") == SocketState::kStale);
  BoundSocket live(dir / "live.sock", /*listen=*/true);
  CHECK(*ProbeSocket(dir / "live.sock") == SocketState::kListening);
}

TEST_CASE("probing a file that is not a socket is an error, never 'stale'", "[client][autospawn]") {
  ScratchDir dir;
  WriteFile(dir / "precious", "data");
  Expected<SocketState> r = ProbeSocket(dir / "precious");
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == Code::kFailedPrecondition);
  CHECK_THAT(r.status().message(), Catch::Contains("not a socket"));
}

TEST_CASE("the start lock is exclusive, 0600, and free again once its holders are gone",
          "[client][autospawn]") {
  ScratchDir dir;
  const auto far = std::chrono::steady_clock::now() + std::chrono::minutes(5);
  Expected<FileLock> got = FileLock::Acquire(dir / "x.lock", far);
  REQUIRE(got.ok());
  std::optional<FileLock> first;
  first.emplace(std::move(got).value());
  struct stat st {};
  REQUIRE(::stat((dir / "x.lock").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  Expected<FileLock> busy = FileLock::Acquire(dir / "x.lock", std::chrono::steady_clock::now());
  REQUIRE_FALSE(busy.ok());
  CHECK(busy.status().code() == Code::kDeadlineExceeded);
  CHECK_THAT(busy.status().message(), Catch::Contains("x.lock"));

  Status waiter_result = Internal("not run");
  std::thread waiter([&] { waiter_result = FileLock::Acquire(dir / "x.lock", far).status(); });
  first.reset();
  waiter.join();
  CHECK(waiter_result.ok());
  // The lock given up at its deadline above was released once granted, and
  // the waiter's lock with its thread: the lock is free again.
  CHECK(FileLock::Acquire(dir / "x.lock", far).ok());
}

TEST_CASE("the log tail keeps the last lines", "[client][autospawn]") {
  ScratchDir dir;
  WriteFile(dir / "log", "one\ntwo\nthree\nfour\n");
  CHECK(TailOfFile(dir / "log", 2) == "three\nfour");
  CHECK(TailOfFile(dir / "log", 10) == "one\ntwo\nthree\nfour");
  CHECK(TailOfFile(dir / "missing", 2).empty());
}

TEST_CASE("QDCACHED_BIN names the daemon and must be executable", "[client][autospawn]") {
  ScratchDir dir;
  WriteFile(dir / "qdcached", "#!/bin/sh\nexit 0\n");
  {
    ScopedEnv env("QDCACHED_BIN", dir / "qdcached");
    Expected<std::string> r = FindDaemonBinary();
    REQUIRE_FALSE(r.ok());  // not executable yet
    CHECK(r.status().code() == Code::kNotFound);
    CHECK_THAT(r.status().message(), Catch::Contains("QDCACHED_BIN"));
  }
  ::chmod((dir / "qdcached").c_str(), 0755);
  ScopedEnv env("QDCACHED_BIN", dir / "qdcached");
  CHECK(*FindDaemonBinary() == dir / "qdcached");
}

TEST_CASE("no daemon is started in a socket directory other users may enter",
          "[client][autospawn]") {
  ScratchDir dir;
  std::filesystem::create_directory(dir / "shared");
  ::chmod((dir / "shared").c_str(), 0755);
  ScopedEnv bin("QDCACHED_BIN", "/nonexistent/qdcached");
  Status s = EnsureDaemon(dir / "shared/qdcached.sock", SpawnOptions{});
  REQUIRE_FALSE(s.ok());
  CHECK(s.code() == Code::kFailedPrecondition);
  CHECK_THAT(s.message(), Catch::Contains("open to other users"));
  CHECK_FALSE(std::filesystem::exists(dir / "shared/qdcached.sock.lock"));
}

TEST_CASE("a socket that answers needs no daemon, and no lock", "[client][autospawn]") {
  ScratchDir dir;
  BoundSocket live(dir / "live.sock", /*listen=*/true);
  ScopedEnv bin("QDCACHED_BIN", "/nonexistent/qdcached");
  CHECK(EnsureDaemon(dir / "live.sock", SpawnOptions{}).ok());
  CHECK_FALSE(std::filesystem::exists(dir / "live.sock.lock"));
}

TEST_CASE("a daemon binary that cannot be found is reported with the socket",
          "[client][autospawn]") {
  ScratchDir dir;
  ScopedEnv bin("QDCACHED_BIN", "/nonexistent/qdcached");
  Status s = EnsureDaemon(dir / "qdcached.sock", SpawnOptions{});
  REQUIRE_FALSE(s.ok());
  CHECK(s.code() == Code::kNotFound);
  CHECK_THAT(s.message(),
             Catch::Contains(dir / "qdcached.sock") && Catch::Contains("QDCACHED_BIN"));
}
