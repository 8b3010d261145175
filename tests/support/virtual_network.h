// Hosts on a virtual network, for tests that need daemons and Redis on
// separate "machines": one network namespace per host, each joined by a veth
// pair to a bridge in a switch namespace of its own (nothing is created in
// the test's own namespace). Host i gets address 10.77.0.(i+1)/24. Names
// carry the test's pid, so concurrent tests never share a namespace; the
// destructor deletes every namespace (their interfaces go with them).
//
// Needs `ip` (iproute2) and the right to create network namespaces
// (CAP_SYS_ADMIN): SkipReason says why not when they are missing.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace qdcache::testing {

class VirtualNetwork {
 public:
  // Why namespaces cannot be made here (to name in a skip), or nullopt.
  static std::optional<std::string> SkipReason();

  // Creates the switch and one namespace per host name. Throws on failure.
  explicit VirtualNetwork(const std::vector<std::string>& hosts);
  ~VirtualNetwork();
  VirtualNetwork(const VirtualNetwork&) = delete;
  VirtualNetwork& operator=(const VirtualNetwork&) = delete;

  [[nodiscard]] std::string Address(const std::string& host) const;
  // /run/netns/<name> of the host's namespace (for setns).
  [[nodiscard]] std::string NamespacePath(const std::string& host) const;
  // Moves the calling thread into the host's network namespace; false on
  // failure.
  [[nodiscard]] bool Enter(const std::string& host) const;
  // The same for a namespace path (NamespacePath): allocates nothing, for a
  // child between fork and exec.
  [[nodiscard]] static bool EnterPath(const char* path);
  // Runs `fn` on a thread inside the host's namespace and waits for it.
  void RunIn(const std::string& host, const std::function<void()>& fn) const;
  // Takes the host's link down (a partition) or up again.
  void SetLink(const std::string& host, bool up);

 private:
  std::size_t Index(const std::string& host) const;
  std::string Name(const std::string& suffix) const;

  std::string stem_;
  std::vector<std::string> hosts_;
  std::vector<std::string> created_;  // namespaces to delete
};

}  // namespace qdcache::testing
