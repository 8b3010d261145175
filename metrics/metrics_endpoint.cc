#include "metrics/metrics_endpoint.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <prometheus/exposer.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <exception>

#include "metrics/listen_address.h"

namespace qdcache::metrics {
namespace {

// The HTTP server reports a failed bind without its reason; a bind of our
// own first (closed again at once) names it: "Address already in use", ...
Status ProbeBind(const ListenAddress& a) {
  sockaddr_storage storage{};
  socklen_t length = 0;
  if (a.ipv6) {
    auto* in6 = reinterpret_cast<sockaddr_in6*>(&storage);
    in6->sin6_family = AF_INET6;
    in6->sin6_port = htons(a.port);
    if (::inet_pton(AF_INET6, a.host.substr(1, a.host.size() - 2).c_str(), &in6->sin6_addr) != 1) {
      return InvalidArgument("bad IPv6 address " + a.host);
    }
    length = sizeof *in6;
  } else {
    auto* in4 = reinterpret_cast<sockaddr_in*>(&storage);
    in4->sin_family = AF_INET;
    in4->sin_port = htons(a.port);
    if (::inet_pton(AF_INET, a.host.c_str(), &in4->sin_addr) != 1)
      return InvalidArgument("bad address " + a.host);
    length = sizeof *in4;
  }
  const int fd = ::socket(storage.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Unavailable(std::string("socket: ") + std::strerror(errno));
  const int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);  // as the HTTP server binds
  Status s = Status::Ok();
  if (::bind(fd, reinterpret_cast<sockaddr*>(&storage), length) != 0 || ::listen(fd, 1) != 0) {
    s = Unavailable(std::strerror(errno));
  }
  ::close(fd);
  return s;
}

}  // namespace

Expected<std::unique_ptr<MetricsEndpoint>> MetricsEndpoint::Start(
    std::string_view listen, std::vector<std::shared_ptr<prometheus::Collectable>> collectables) {
  QDC_ASSIGN_OR_RETURN(ListenAddress address, ParseListenAddress(listen));
  const std::string where = address.host + ":" + std::to_string(address.port);
  if (Status probe = ProbeBind(address); !probe.ok()) {
    return Unavailable("cannot listen on " + where + ": " + probe.message());
  }
  std::unique_ptr<MetricsEndpoint> endpoint(new MetricsEndpoint());
  endpoint->collectables_ = std::move(collectables);
  try {
    // civetweb's listening_ports syntax is "HOST:PORT" / "[V6]:PORT", which
    // ParseListenAddress admits nothing beyond (no ',' lists, no 's' suffix).
    endpoint->exposer_ = std::make_unique<prometheus::Exposer>(where, /*num_threads=*/2);
    for (const auto& c : endpoint->collectables_) endpoint->exposer_->RegisterCollectable(c);
    const std::vector<int> ports = endpoint->exposer_->GetListeningPorts();
    if (ports.empty()) return Unavailable("cannot listen on " + where + ": no port bound");
    endpoint->port_ = ports.front();
  } catch (const std::exception& e) {
    return Unavailable("cannot listen on " + where + ": " + e.what());
  }
  endpoint->url_ = "http://" + address.host + ":" + std::to_string(endpoint->port_) + "/metrics";
  return endpoint;
}

MetricsEndpoint::~MetricsEndpoint() = default;

}  // namespace qdcache::metrics
