#include "bench/echo_server.h"

#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <cstring>
#include <thread>

#include <grpcpp/grpcpp.h>

#include "echo.grpc.pb.h"

namespace qdcache::bench {
namespace {

Status Errno(const std::string& what) { return Unavailable(what + ": " + std::strerror(errno)); }

Expected<sockaddr_un> UnixAddress(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof(addr.sun_path)) return InvalidArgument("socket path too long: " + path);
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  return addr;
}

bool ReadAll(int fd, char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::read(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

// Writes `header` (one or two uint32) then `size` bytes of `data`.
bool WriteFrame(int fd, const std::uint32_t* header, int words, const char* data, std::uint32_t size) {
  iovec iov[2] = {{const_cast<std::uint32_t*>(header), words * sizeof(std::uint32_t)},
                  {const_cast<char*>(data), size}};
  std::size_t left = iov[0].iov_len + size;
  int first = 0;
  while (left > 0) {
    const ssize_t n = ::writev(fd, iov + first, 2 - first);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    left -= static_cast<std::size_t>(n);
    std::size_t done = static_cast<std::size_t>(n);
    while (first < 2 && done >= iov[first].iov_len) done -= iov[first++].iov_len;
    if (first < 2) {
      iov[first].iov_base = static_cast<char*>(iov[first].iov_base) + done;
      iov[first].iov_len -= done;
    }
  }
  return true;
}

// Reads `size` bytes into `*buffer`.
bool ReadBody(int fd, std::uint32_t size, std::string* buffer) {
  if (size > kMaxEchoFrame) return false;
  buffer->resize(size);
  return ReadAll(fd, buffer->data(), size);
}

void ServeConnection(int fd) {
  static const std::string reply(kMaxEchoFrame, 'r');
  std::string request;
  for (;;) {
    std::uint32_t header[2];  // request length, reply size
    if (!ReadAll(fd, reinterpret_cast<char*>(header), sizeof(header)) || header[1] > kMaxEchoFrame ||
        !ReadBody(fd, header[0], &request)) {
      break;
    }
    const bool echo = header[1] == 0;
    const std::uint32_t size = echo ? header[0] : header[1];
    if (!WriteFrame(fd, &size, 1, echo ? request.data() : reply.data(), size)) break;
  }
  ::close(fd);
}

class EchoService final : public bench_echo::Echo::CallbackService {
  grpc::ServerUnaryReactor* Echo(grpc::CallbackServerContext* context, const bench_echo::EchoMessage* request,
                                 bench_echo::EchoMessage* response) override {
    static const std::string reply(kMaxEchoFrame, 'r');
    if (request->reply_bytes() == 0) {
      response->set_payload(request->payload());
    } else {
      response->set_payload(reply.data(), std::min<std::size_t>(request->reply_bytes(), reply.size()));
    }
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    reactor->Finish(grpc::Status::OK);
    return reactor;
  }
};

}  // namespace

Expected<std::unique_ptr<RawEchoServer>> RawEchoServer::Start(const std::string& path) {
  QDC_ASSIGN_OR_RETURN(sockaddr_un addr, UnixAddress(path));
  ::unlink(path.c_str());
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Errno("socket");
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 || ::listen(fd, 64) != 0) {
    Status s = Errno("listening on " + path);
    ::close(fd);
    return s;
  }
  std::thread([fd] {
    for (;;) {
      const int conn = ::accept4(fd, nullptr, nullptr, SOCK_CLOEXEC);
      if (conn < 0) {
        if (errno == EINTR || errno == ECONNABORTED) continue;
        return;  // the listening socket was closed
      }
      std::thread(ServeConnection, conn).detach();
    }
  }).detach();
  return std::unique_ptr<RawEchoServer>(new RawEchoServer(fd));
}

RawEchoServer::RawEchoServer(int listen_fd) : listen_fd_(listen_fd) {}
RawEchoServer::~RawEchoServer() { ::shutdown(listen_fd_, SHUT_RDWR); }

struct GrpcEchoServer::Impl {
  std::unique_ptr<grpc::Service> service = std::make_unique<EchoService>();
  std::unique_ptr<grpc::Server> server;
};

Expected<std::unique_ptr<GrpcEchoServer>> GrpcEchoServer::Start(const std::string& unix_path,
                                                                const std::string& tcp) {
  auto impl = std::make_unique<Impl>();
  grpc::ServerBuilder builder;
  builder.SetMaxReceiveMessageSize(kMaxEchoFrame);
  builder.SetMaxSendMessageSize(kMaxEchoFrame);
  ::unlink(unix_path.c_str());
  builder.AddListeningPort("unix:" + unix_path, grpc::InsecureServerCredentials());
  int port = 0;
  if (!tcp.empty()) builder.AddListeningPort(tcp, grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(impl->service.get());
  impl->server = builder.BuildAndStart();
  if (impl->server == nullptr) return Unavailable("the gRPC echo server did not start");
  if (!tcp.empty() && port == 0) return Unavailable("the gRPC echo server could not listen on " + tcp);
  return std::unique_ptr<GrpcEchoServer>(new GrpcEchoServer(std::move(impl), port));
}

GrpcEchoServer::GrpcEchoServer(std::unique_ptr<Impl> impl, int tcp_port)
    : impl_(std::move(impl)), tcp_port_(tcp_port) {}
GrpcEchoServer::~GrpcEchoServer() { impl_->server->Shutdown(); }

Expected<std::unique_ptr<RawEchoClient>> RawEchoClient::Connect(const std::string& path) {
  QDC_ASSIGN_OR_RETURN(sockaddr_un addr, UnixAddress(path));
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Errno("socket");
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    Status s = Errno("connecting to " + path);
    ::close(fd);
    return s;
  }
  return std::unique_ptr<RawEchoClient>(new RawEchoClient(fd));
}

RawEchoClient::~RawEchoClient() { ::close(fd_); }

Status RawEchoClient::RoundTrip(const std::string& payload, std::uint32_t reply_bytes,
                                std::string* answer) {
  const std::uint32_t header[2] = {static_cast<std::uint32_t>(payload.size()), reply_bytes};
  if (!WriteFrame(fd_, header, 2, payload.data(), header[0])) return Errno("raw echo write");
  std::uint32_t size = 0;
  if (!ReadAll(fd_, reinterpret_cast<char*>(&size), sizeof(size)) || !ReadBody(fd_, size, answer)) {
    return Unavailable("raw echo: connection closed");
  }
  return Status::Ok();
}

}  // namespace qdcache::bench
