// The daemon's unix-socket listener. It accepts connections itself, reads the
// peer's credentials (SO_PEERCRED) and only then hands each connection to
// gRPC, so every call can be attributed to the uid that made it: the tenant
// that fast-key aliases belong to. With a lean server, it first waits for a
// connection's first byte (at most kFirstByteTimeout): the lean transport's
// hello goes to the lean server (daemon/lean_server.h), anything else to
// gRPC.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>

#include "common/expected.h"

namespace grpc {
class Server;
}

namespace qdcache::daemon {

class LeanServer;

// How long a new connection may stay silent, and how many may wait at once
// (beyond, the oldest goes to gRPC).
inline constexpr std::chrono::seconds kFirstByteTimeout{10};
inline constexpr std::size_t kMaxPending = 256;

// Connection fd -> peer uid. gRPC names a connection handed over by fd
// "fd:<N>" in ServerContext::peer().
class PeerRegistry {
 public:
  void Set(int fd, std::uint32_t uid);
  // The uid for a peer string "fd:<N>", or nullopt for any other transport.
  [[nodiscard]] std::optional<std::uint32_t> UidOf(const std::string& peer) const;

 private:
  mutable std::mutex mu_;
  std::unordered_map<int, std::uint32_t> uids_;  // guarded by mu_
};

class UnixAcceptor {
 public:
  // Binds `path` (which PrepareSocketPath has cleared), gives it to `group`
  // if set, sets `mode`, listens. UNAVAILABLE (path removed) on failure, e.g.
  // when the daemon may not chgrp to `group`. The socket file is removed by
  // RemoveSocket() or the destructor, and only while it is still the one
  // bound here.
  [[nodiscard]] static Expected<std::unique_ptr<UnixAcceptor>> Listen(
      const std::string& path, mode_t mode, std::optional<gid_t> group = std::nullopt);
  // Takes over `listen_fd`, a socket already bound and listening (socket
  // activation: systemd set its path, owner and mode). Stop() closes the fd
  // but never removes the path.
  [[nodiscard]] static Expected<std::unique_ptr<UnixAcceptor>> Adopt(int listen_fd);
  ~UnixAcceptor();  // Stop()s and RemoveSocket()s
  UnixAcceptor(const UnixAcceptor&) = delete;
  UnixAcceptor& operator=(const UnixAcceptor&) = delete;

  // Starts the accept thread. `server`, `registry` and `lean` (may be null:
  // every connection goes to gRPC at once) must outlive Stop().
  void Start(grpc::Server* server, PeerRegistry* registry, LeanServer* lean = nullptr);
  // Stops accepting (existing connections stay with gRPC) and closes the socket.
  void Stop();
  // Removes the socket file Listen() bound, if the path still holds that
  // very socket (same device and inode); never anything else. Idempotent.
  void RemoveSocket();
  // False once the accept loop has ended by itself (the listening socket
  // failed): the daemon takes no new connections. Any thread.
  [[nodiscard]] bool accepting() const { return !failed_.load(std::memory_order_relaxed); }

 private:
  UnixAcceptor(int listen_fd, int wake_fd) : listen_fd_(listen_fd), wake_fd_(wake_fd) {}
  void Run(grpc::Server* server, PeerRegistry* registry, LeanServer* lean);

  struct BoundPath {
    std::string path;
    dev_t dev;
    ino_t ino;
  };
  int listen_fd_;
  int wake_fd_;
  std::optional<BoundPath> bound_;  // set by Listen once bound; never for Adopt  // eventfd: written by Stop() to end the accept loop
  std::atomic<bool> failed_{false};
  std::thread thread_;
};

}  // namespace qdcache::daemon
