// The baselines the bench compares the daemon against, served from their
// own process (qdcache-bench-echo) so that, like the daemon, they run on the
// other side of a socket: a raw unix-socket round trip (length-prefixed
// frames, a thread per connection, no protocol beyond that) and a bare gRPC
// call. Both answer a small request with a reply of the size it asks for,
// the shape of a cache hit, or echo the request when it asks for none.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "common/expected.h"

namespace qdcache::bench {

// Raw wire format: a request is a little-endian uint32 length L, a uint32
// reply size N, then L bytes; the answer is a uint32 length and that many
// bytes: N bytes, or the request's L bytes when N is 0. Sizes above this
// end the connection.
inline constexpr std::uint32_t kMaxEchoFrame = 16u << 20;

class RawEchoServer {
 public:
  // Listens on a unix socket at `path` (replacing a stale one) and serves
  // each connection on its own thread until the process exits.
  [[nodiscard]] static Expected<std::unique_ptr<RawEchoServer>> Start(const std::string& path);
  ~RawEchoServer();
  RawEchoServer(const RawEchoServer&) = delete;
  RawEchoServer& operator=(const RawEchoServer&) = delete;

 private:
  explicit RawEchoServer(int listen_fd);
  int listen_fd_;
};

// A bare gRPC echo on "unix:PATH" and, when `tcp` is not empty, on
// "HOST:PORT" (port 0: the kernel picks; see tcp_port()).
class GrpcEchoServer {
 public:
  [[nodiscard]] static Expected<std::unique_ptr<GrpcEchoServer>> Start(const std::string& unix_path,
                                                                      const std::string& tcp);
  ~GrpcEchoServer();
  GrpcEchoServer(const GrpcEchoServer&) = delete;
  GrpcEchoServer& operator=(const GrpcEchoServer&) = delete;
  [[nodiscard]] int tcp_port() const { return tcp_port_; }

 private:
  struct Impl;
  explicit GrpcEchoServer(std::unique_ptr<Impl> impl, int tcp_port);
  std::unique_ptr<Impl> impl_;
  int tcp_port_;
};

// The client side of the raw echo: one connection, one frame at a time.
class RawEchoClient {
 public:
  [[nodiscard]] static Expected<std::unique_ptr<RawEchoClient>> Connect(const std::string& path);
  ~RawEchoClient();
  RawEchoClient(const RawEchoClient&) = delete;
  RawEchoClient& operator=(const RawEchoClient&) = delete;
  // Sends `payload` asking for `reply_bytes` (0: the payload back) and reads
  // the answer into `*answer`.
  [[nodiscard]] Status RoundTrip(const std::string& payload, std::uint32_t reply_bytes,
                                 std::string* answer);

 private:
  explicit RawEchoClient(int fd) : fd_(fd) {}
  int fd_;
};

}  // namespace qdcache::bench
