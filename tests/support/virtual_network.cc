#include "tests/support/virtual_network.h"

#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <stdexcept>
#include <thread>

#include "tests/support/subprocess.h"

namespace qdcache::testing {
namespace {

void Ip(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {FindOnPath("ip")};
  argv.insert(argv.end(), args.begin(), args.end());
  const RunResult r = Run(argv);
  if (r.exit_code != 0) {
    std::string command;
    for (const std::string& a : argv) command += a + " ";
    throw std::runtime_error(command + "failed: " + r.err);
  }
}

}  // namespace

std::optional<std::string> VirtualNetwork::SkipReason() {
  if (FindOnPath("ip").empty()) return "`ip` (iproute2) is not installed";
  const std::string probe = "qdt" + std::to_string(::getpid()) + "-probe";
  const RunResult added = Run({FindOnPath("ip"), "netns", "add", probe});
  if (added.exit_code != 0) {
    return "network namespaces cannot be created here (needs CAP_SYS_ADMIN): " + added.err;
  }
  (void)Run({FindOnPath("ip"), "netns", "delete", probe});
  return std::nullopt;
}

VirtualNetwork::VirtualNetwork(const std::vector<std::string>& hosts)
    : stem_("qdt" + std::to_string(::getpid()) + "-"), hosts_(hosts) {
  try {
    const std::string sw = Name("sw");
    Ip({"netns", "add", sw});
    created_.push_back(sw);
    Ip({"-n", sw, "link", "add", "br0", "type", "bridge"});
    Ip({"-n", sw, "link", "set", "br0", "up"});
    for (std::size_t i = 0; i < hosts_.size(); ++i) {
      const std::string ns = Name(hosts_[i]);
      Ip({"netns", "add", ns});
      created_.push_back(ns);
      const std::string port = "p" + std::to_string(i);
      Ip({"-n", sw, "link", "add", port, "type", "veth", "peer", "name", "eth0", "netns", ns});
      Ip({"-n", sw, "link", "set", port, "master", "br0", "up"});
      Ip({"-n", ns, "addr", "add", Address(hosts_[i]) + "/24", "dev", "eth0"});
      Ip({"-n", ns, "link", "set", "eth0", "up"});
      Ip({"-n", ns, "link", "set", "lo", "up"});
    }
  } catch (...) {
    for (const std::string& ns : created_) (void)Run({FindOnPath("ip"), "netns", "delete", ns});
    throw;
  }
}

VirtualNetwork::~VirtualNetwork() {
  for (const std::string& ns : created_) (void)Run({FindOnPath("ip"), "netns", "delete", ns});
}

std::size_t VirtualNetwork::Index(const std::string& host) const {
  const auto it = std::find(hosts_.begin(), hosts_.end(), host);
  if (it == hosts_.end()) throw std::invalid_argument("no host " + host);
  return static_cast<std::size_t>(it - hosts_.begin());
}

std::string VirtualNetwork::Name(const std::string& suffix) const { return stem_ + suffix; }

std::string VirtualNetwork::Address(const std::string& host) const {
  return "10.77.0." + std::to_string(Index(host) + 1);
}

std::string VirtualNetwork::NamespacePath(const std::string& host) const {
  return "/run/netns/" + Name(hosts_[Index(host)]);
}

bool VirtualNetwork::Enter(const std::string& host) const { return EnterPath(NamespacePath(host).c_str()); }

bool VirtualNetwork::EnterPath(const char* path) {
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool entered = ::setns(fd, CLONE_NEWNET) == 0;
  ::close(fd);
  return entered;
}

void VirtualNetwork::RunIn(const std::string& host, const std::function<void()>& fn) const {
  std::exception_ptr failure;
  std::thread t([&] {
    try {
      if (!Enter(host)) throw std::runtime_error("cannot enter the namespace of " + host);
      fn();
    } catch (...) {
      failure = std::current_exception();
    }
  });
  t.join();
  if (failure) std::rethrow_exception(failure);
}

void VirtualNetwork::SetLink(const std::string& host, bool up) {
  Ip({"-n", Name(hosts_[Index(host)]), "link", "set", "eth0", up ? "up" : "down"});
}

}  // namespace qdcache::testing
