// qdcached under a service manager, with the manager played by the test:
// sd_notify messages (READY, WATCHDOG, STOPPING) on a datagram socket, and
// socket activation with a listening socket passed as fd 3.
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <optional>

#include "tests/support/daemon_process.h"
#include "tests/support/kernels.h"
#include "tests/support/subprocess.h"

using namespace qdcache;
using namespace qdcache::testing;

namespace {

// A bound unix socket of `type` at `path`, closed on scope exit.
class UnixSocket {
 public:
  UnixSocket(const std::string& path, int type) : fd_(::socket(AF_UNIX, type | SOCK_CLOEXEC, 0)) {
    REQUIRE(fd_ >= 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    REQUIRE(path.size() < sizeof addr.sun_path);
    std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
    REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    if (type == SOCK_STREAM) REQUIRE(::listen(fd_, 16) == 0);
  }
  ~UnixSocket() { ::close(fd_); }
  UnixSocket(const UnixSocket&) = delete;
  UnixSocket& operator=(const UnixSocket&) = delete;
  int fd() const { return fd_; }

  // The next datagram, or nullopt if none comes before a generous bound
  // (only there so that a broken daemon fails the test instead of hanging it).
  std::optional<std::string> NextDatagram() const {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, 120'000) <= 0) return std::nullopt;
    char buf[4096];
    const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
    if (n < 0) return std::nullopt;
    return std::string(buf, static_cast<std::size_t>(n));
  }

  // Reads datagrams until one contains `line` (a whole line); the ones
  // skipped are appended to `seen`.
  bool AwaitMessage(const std::string& line, std::string& seen) const {
    while (std::optional<std::string> m = NextDatagram()) {
      seen += *m + "\n--\n";
      if (("\n" + *m + "\n").find("\n" + line + "\n") != std::string::npos) return true;
    }
    return false;
  }

 private:
  int fd_;
};

}  // namespace

TEST_CASE("the daemon notifies READY=1 once serving, pings the watchdog, and STOPPING=1 on SIGTERM",
          "[integration][systemd]") {
  TempDir dir;
  UnixSocket notify(dir / "notify", SOCK_DGRAM);
  DaemonProcess daemon(dir.path());
  // 2 s: the daemon pings at once, then every second.
  daemon.set_env({"NOTIFY_SOCKET=" + (dir / "notify"), "WATCHDOG_USEC=2000000", "WATCHDOG_PID"});
  daemon.Start();
  std::string seen;
  CAPTURE(seen);  // every message so far, shown with any failure below
  CHECK(notify.AwaitMessage("READY=1", seen));
  CHECK_THAT(seen, Catch::Contains("STATUS=serving unix:" + daemon.socket_path()));
  CHECK(notify.AwaitMessage("WATCHDOG=1", seen));
  CHECK(daemon.Stop() == 0);
  CHECK(notify.AwaitMessage("STOPPING=1", seen));
}

TEST_CASE("the daemon pings no watchdog meant for another process", "[integration][systemd]") {
  TempDir dir;
  UnixSocket notify(dir / "notify", SOCK_DGRAM);
  DaemonProcess daemon(dir.path());
  // WATCHDOG_PID names this test process, not the daemon.
  daemon.set_env({"NOTIFY_SOCKET=" + (dir / "notify"), "WATCHDOG_USEC=2000000",
                  "WATCHDOG_PID=" + std::to_string(::getpid())});
  daemon.Start();
  CHECK(daemon.Stop() == 0);
  std::string seen;
  CHECK(notify.AwaitMessage("STOPPING=1", seen));  // everything the daemon sent is queued before this
  CHECK_THAT(seen, Catch::Contains("READY=1") && !Catch::Contains("WATCHDOG=1"));
}

TEST_CASE("with socket activation the daemon serves on the passed socket and leaves it in place",
          "[integration][systemd]") {
  TempDir dir;
  DaemonProcess daemon(dir.path());
  UnixSocket listening(daemon.socket_path(), SOCK_STREAM);
  daemon.set_activation_socket(listening.fd());
  daemon.Start();
  CHECK_THAT(daemon.log(), Catch::Contains("serving unix:" + daemon.socket_path() + " (socket activation)"));
  auto client = daemon.Connect();
  v1::CompileResult r = CompileOne(*client, Descriptor("cpu/saxpy.ll", "cpu:x86-64"));
  CHECK(r.status() == v1::CACHE_STATUS_COMPILED);
  CHECK(daemon.Stop() == 0);
  // The service manager owns the socket: still there, still listening.
  CHECK(std::filesystem::exists(daemon.socket_path()));
  CHECK_THAT(daemon.log(), !Catch::Contains("already serving"));
}

TEST_CASE("a passed socket that is not a listening unix stream socket is refused", "[integration][systemd]") {
  TempDir dir;
  UnixSocket datagram(dir / "dgram", SOCK_DGRAM);
  DaemonProcess daemon(dir.path());
  daemon.set_activation_socket(datagram.fd());
  CHECK_THROWS_WITH(daemon.Start(), Catch::Contains("not a listening unix stream socket"));
}
