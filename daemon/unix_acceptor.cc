#include "daemon/unix_acceptor.h"
#include "lean/protocol.h"
#include "daemon/lean_server.h"

#include <chrono>
#include <vector>

#include <fcntl.h>
#include <grpcpp/server.h>
#include <grpcpp/server_posix.h>
#include <poll.h>
#include <spdlog/spdlog.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace qdcache::daemon {

void PeerRegistry::Set(int fd, std::uint32_t uid) {
  std::lock_guard lock(mu_);
  uids_[fd] = uid;
}

std::optional<std::uint32_t> PeerRegistry::UidOf(const std::string& peer) const {
  constexpr std::string_view kPrefix = "fd:";
  if (peer.compare(0, kPrefix.size(), kPrefix) != 0) return std::nullopt;
  int fd = 0;
  for (std::size_t i = kPrefix.size(); i < peer.size(); ++i) {
    if (peer[i] < '0' || peer[i] > '9' || fd > 1'000'000) return std::nullopt;
    fd = fd * 10 + (peer[i] - '0');
  }
  std::lock_guard lock(mu_);
  auto it = uids_.find(fd);
  if (it == uids_.end()) return std::nullopt;
  return it->second;
}

Expected<std::unique_ptr<UnixAcceptor>> UnixAcceptor::Listen(const std::string& path, mode_t mode,
                                                             std::optional<gid_t> group) {
  sockaddr_un addr{};
  if (path.size() >= sizeof addr.sun_path) return InvalidArgument("socket path too long: " + path);
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return Unavailable(std::string("socket: ") + std::strerror(errno));
  int wake = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake < 0) {
    ::close(fd);
    return Unavailable(std::string("eventfd: ") + std::strerror(errno));
  }
  std::unique_ptr<UnixAcceptor> acceptor(new UnixAcceptor(fd, wake));
  // bind, then chgrp and chmod, then listen: nobody can connect before the
  // group and mode are set.
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    const int err = errno;
    return Unavailable("cannot bind " + path + ": " + std::strerror(err));
  }
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    acceptor->bound_ = BoundPath{path, st.st_dev, st.st_ino};  // from here on the destructor removes it
  }
  if (group && ::chown(path.c_str(), static_cast<uid_t>(-1), *group) != 0) {
    const int err = errno;
    return Unavailable("cannot give socket " + path + " to group " + std::to_string(*group) + ": " +
                       std::strerror(err));
  }
  if (::chmod(path.c_str(), mode) != 0 || ::listen(fd, SOMAXCONN) != 0) {
    const int err = errno;
    return Unavailable("cannot listen on " + path + ": " + std::strerror(err));
  }
  return acceptor;
}

Expected<std::unique_ptr<UnixAcceptor>> UnixAcceptor::Adopt(int listen_fd) {
  const int flags = ::fcntl(listen_fd, F_GETFL);
  if (flags < 0 || ::fcntl(listen_fd, F_SETFL, flags | O_NONBLOCK) != 0) {
    return Unavailable(std::string("cannot make the activation socket non-blocking: ") + std::strerror(errno));
  }
  int wake = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake < 0) return Unavailable(std::string("eventfd: ") + std::strerror(errno));
  return std::unique_ptr<UnixAcceptor>(new UnixAcceptor(listen_fd, wake));
}

UnixAcceptor::~UnixAcceptor() {
  Stop();
  RemoveSocket();
  ::close(wake_fd_);
}

void UnixAcceptor::RemoveSocket() {
  if (!bound_) return;
  // Only the socket this acceptor bound: after a long drain the path may
  // belong to a successor daemon, or to whatever a user put there since.
  struct stat st {};
  if (::lstat(bound_->path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode) && st.st_dev == bound_->dev &&
      st.st_ino == bound_->ino) {
    ::unlink(bound_->path.c_str());
  }
  bound_.reset();
}

void UnixAcceptor::Start(grpc::Server* server, PeerRegistry* registry, LeanServer* lean_server) {
  thread_ = std::thread([this, server, registry, lean_server] { Run(server, registry, lean_server); });
}

void UnixAcceptor::Stop() {
  if (thread_.joinable()) {
    std::uint64_t one = 1;
    [[maybe_unused]] ssize_t n = ::write(wake_fd_, &one, sizeof one);
    thread_.join();
  }
  if (listen_fd_ >= 0) {
    ::close(listen_fd_);
    listen_fd_ = -1;
  }
}

void UnixAcceptor::Run(grpc::Server* server, PeerRegistry* registry, LeanServer* lean_server) {
  using Clock = std::chrono::steady_clock;
  // Connections whose first byte has not come yet (with a lean server only).
  struct Pending {
    int fd;
    std::uint32_t uid;
    Clock::time_point deadline;
  };
  std::vector<Pending> pending;
  auto to_grpc = [&](int fd, std::uint32_t uid) {
    registry->Set(fd, uid);
    grpc::AddInsecureChannelFromFd(server, fd);  // gRPC owns (and closes) it now
  };
  // Its first byte tells the lean hello ('Q') from anything else, which is
  // gRPC's (an HTTP/2 preface starts with 'P'). Nothing is read: the
  // transport that gets the connection reads it all. False: undecided.
  auto route = [&](const Pending& p) {
    char first = 0;
    const ssize_t n = ::recv(p.fd, &first, 1, MSG_PEEK | MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return false;
    if (n <= 0) {
      ::close(p.fd);  // closed (or failed) before saying anything
    } else if (first == lean::kHello[0]) {
      lean_server->Adopt(p.fd, p.uid);
    } else {
      to_grpc(p.fd, p.uid);
    }
    return true;
  };
  std::vector<pollfd> fds;
  for (;;) {
    fds.assign({{listen_fd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}});
    for (const Pending& p : pending) fds.push_back({p.fd, POLLIN, 0});
    // Pending connections are in arrival order, so the first's deadline is the earliest.
    const int timeout =
        pending.empty()
            ? -1
            : static_cast<int>(std::max<long long>(
                  0, std::chrono::ceil<std::chrono::milliseconds>(pending.front().deadline - Clock::now()).count()));
    if (::poll(fds.data(), fds.size(), timeout) < 0) {
      if (errno == EINTR) continue;
      spdlog::error("accept loop: poll: {}", std::strerror(errno));
      failed_ = true;
      break;
    }
    if (fds[1].revents != 0) break;
    const Clock::time_point now = Clock::now();
    for (std::size_t i = pending.size(); i-- > 0;) {
      bool done = false;
      if (fds[2 + i].revents != 0) {
        done = route(pending[i]);
      } else if (now >= pending[i].deadline) {
        spdlog::debug("connection fd {} sent nothing for {}s; closed", pending[i].fd, kFirstByteTimeout.count());
        ::close(pending[i].fd);
        done = true;
      }
      if (done) pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(i));
    }
    if (fds[0].revents & (POLLERR | POLLNVAL)) {
      spdlog::error("the listening socket failed; no new connections are accepted");
      failed_ = true;
      break;
    }
    if ((fds[0].revents & POLLIN) == 0) continue;
    int conn = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (conn < 0) {
      const int err = errno;
      if (err == EMFILE || err == ENFILE || err == ENOBUFS || err == ENOMEM) {
        // Out of descriptors or memory: the pending connection keeps the
        // socket readable, so pause (waking early for Stop) instead of spinning.
        spdlog::warn("accept: {}; pausing new connections for 100 ms", std::strerror(err));
        pollfd wake = {wake_fd_, POLLIN, 0};
        if (::poll(&wake, 1, 100) > 0) break;
      } else if (err != EAGAIN && err != EWOULDBLOCK && err != EINTR && err != ECONNABORTED) {
        spdlog::warn("accept: {}", std::strerror(err));
      }
      continue;
    }
    ucred cred{};
    socklen_t len = sizeof cred;
    if (::getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
      spdlog::warn("SO_PEERCRED: {}; dropping the connection", std::strerror(errno));
      ::close(conn);
      continue;
    }
    spdlog::debug("connection fd {} from uid {} pid {}", conn, cred.uid, cred.pid);
    if (lean_server == nullptr) {
      to_grpc(conn, cred.uid);
      continue;
    }
    if (pending.size() >= kMaxPending) {  // the oldest goes to gRPC, whose own handshake timeout ends it
      to_grpc(pending.front().fd, pending.front().uid);
      pending.erase(pending.begin());
    }
    pending.push_back({conn, cred.uid, Clock::now() + kFirstByteTimeout});
  }
  for (const Pending& p : pending) ::close(p.fd);
}

}  // namespace qdcache::daemon
