#include "tests/support/metrics_scrape.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <stdexcept>

namespace qdcache::testing {

std::string ScrapeMetrics(const std::string& address) {
  const auto fail = [&](const std::string& what) { return std::runtime_error(what + " (" + address + ")"); };
  const std::size_t colon = address.rfind(':');
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(static_cast<std::uint16_t>(std::stoi(address.substr(colon + 1))));
  if (::inet_pton(AF_INET, address.substr(0, colon).c_str(), &sa.sin_addr) != 1) throw fail("not an IPv4 address");
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw fail("socket");
  if (::connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0) {
    ::close(fd);
    throw fail("cannot connect");
  }
  const std::string request = "GET /metrics HTTP/1.0\r\nHost: " + address + "\r\n\r\n";
  const bool sent = ::write(fd, request.data(), request.size()) == static_cast<ssize_t>(request.size());
  std::string response;
  char buf[65536];
  ssize_t n;
  while (sent && (n = ::read(fd, buf, sizeof buf)) > 0) response.append(buf, static_cast<std::size_t>(n));
  ::close(fd);
  const std::size_t body = response.find("\r\n\r\n");
  if (!sent || body == std::string::npos || response.rfind("HTTP/1.1 200", 0) != 0) {
    throw fail("no 200 answer: " + response.substr(0, 512));
  }
  return response.substr(body + 4);
}

}  // namespace qdcache::testing
