// Real redis-server processes for integration tests: one server, or a Redis
// Cluster of three masters, on free loopback ports, found on PATH. Each
// process dies with the test (PR_SET_PDEATHSIG) and is killed on destruction.
// Readiness is what the server logs ("Ready to accept connections", "Cluster
// state changed: ok"), waited for as an event (log_watch.h).
//
// Tests that need Redis call RedisAvailable() first and return with a WARN
// when it is false (Catch2 v2 has no SKIP).
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "remote/redis_connection.h"
#include "remote/redis_url.h"
#include "tests/support/subprocess.h"

namespace qdcache::testing {

// True when redis-server and redis-cli are on PATH.
bool RedisAvailable();

class RedisServer {
 public:
  // `dir`: the server's working directory (logs, cluster config). With
  // `cluster`, the server runs in cluster mode with its config in `dir`.
  RedisServer(std::string dir, bool cluster = false);
  ~RedisServer();  // SIGKILLs a server still running
  RedisServer(const RedisServer&) = delete;
  RedisServer& operator=(const RedisServer&) = delete;

  // Starts on free ports (first call) or the same ports as before (after
  // Kill), and waits until it logs that it is ready. Throws on failure with
  // its log.
  void Start();
  void Kill();  // SIGKILL and wait
  // Runs the server in the network namespace at `netns_path`
  // (VirtualNetwork::NamespacePath), bound to `address` there, from the next
  // Start on; Command then reaches it from inside that namespace.
  void set_network(std::string netns_path, std::string address);
  bool running() const { return pid_ > 0; }

  int port() const { return port_; }
  remote::Endpoint endpoint() const { return {address_, port_}; }
  // Runs one command on this server; throws if it cannot be reached.
  remote::Reply Command(const std::vector<std::string>& argv) const;
  std::string log() const;
  std::string log_path() const;
  pid_t pid() const { return pid_; }

 private:
  const std::string dir_;
  const bool cluster_;
  std::string netns_path_;  // empty: the test's own namespace
  std::string address_ = "127.0.0.1";
  int port_ = 0;
  int bus_port_ = 0;
  pid_t pid_ = -1;
};

// Three masters, every slot assigned (redis-cli --cluster create), each with
// `replicas` replicas that take over when it dies.
class RedisCluster {
 public:
  explicit RedisCluster(const std::string& dir, int replicas = 0);
  // Every node in the network namespace at `netns_path`, bound to `address`
  // (RedisServer::set_network); call before Start.
  void set_network(const std::string& netns_path, const std::string& address);
  // Starts the nodes, creates the cluster and waits until every node says
  // cluster_state:ok.
  void Start();
  void KillAll();
  // Starts the killed nodes again on their ports with their cluster config;
  // waits for cluster_state:ok.
  void RestartAll();

  std::vector<std::unique_ptr<RedisServer>>& nodes() { return nodes_; }
  // The node serving `slot` (per CLUSTER SLOTS of the first node).
  RedisServer& NodeForSlot(int slot);
  std::string NodeId(const RedisServer& node) const;
  // The nodes that are masters now (ROLE), among those running.
  std::vector<RedisServer*> Masters();
  // A running replica of `master` (ROLE), or null.
  RedisServer* ReplicaOf(const RedisServer& master);
  // Returns once every running node says cluster_state:ok (after a master
  // was killed: once its replica has taken over). Throws after a bound.
  void AwaitOk() const { WaitUntilOk(); }

 private:
  // Returns once every node says cluster_state:ok (or logs that it became so).
  void WaitUntilOk() const;

  std::vector<std::unique_ptr<RedisServer>> nodes_;
  const int replicas_;
  std::string netns_path_;  // empty: the test's own namespace
};

// The nodes behind a URL under test: what the integration tests inspect.
// Keys matching `pattern` over every node.
std::vector<std::string> KeysOn(const std::vector<RedisServer*>& nodes, const std::string& pattern);
// Sum of DBSIZE over the nodes.
long long DbSize(const std::vector<RedisServer*>& nodes);
// Overwrites every key matching `pattern` with `value`, on the node that holds it.
int OverwriteKeys(const std::vector<RedisServer*>& nodes, const std::string& pattern, const std::string& value);

}  // namespace qdcache::testing
