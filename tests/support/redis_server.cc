#include "tests/support/redis_server.h"

#include "tests/support/virtual_network.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <thread>

#include <chrono>
#include <cstdlib>
#include <stdexcept>

#include "tests/support/log_watch.h"
#include "tests/support/subprocess.h"

namespace qdcache::testing {
namespace {

// A loopback port that was free a moment ago (bound to port 0, then closed).
int FreePort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::runtime_error("socket failed");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof addr;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    ::close(fd);
    throw std::runtime_error("cannot bind a loopback port");
  }
  ::close(fd);
  return ntohs(addr.sin_port);
}

remote::ConnectOptions TestConnectOptions() {
  remote::ConnectOptions o;
  o.connect_timeout = std::chrono::seconds(2);
  o.op_timeout = std::chrono::seconds(5);
  return o;
}

}  // namespace

bool RedisAvailable() { return !FindOnPath("redis-server").empty() && !FindOnPath("redis-cli").empty(); }

RedisServer::RedisServer(std::string dir, bool cluster) : dir_(std::move(dir)), cluster_(cluster) {}

RedisServer::~RedisServer() { Kill(); }

void RedisServer::Start() {
  if (port_ == 0) {
    port_ = FreePort();
    if (cluster_) {
      do {
        bus_port_ = FreePort();
      } while (bus_port_ == port_);
    }
  }
  const std::string binary = FindOnPath("redis-server");
  if (binary.empty()) throw std::runtime_error("redis-server is not on PATH");
  std::vector<std::string> argv = {binary,        "--port",  std::to_string(port_), "--bind", address_,
                                   "--save",      "",        "--appendonly",        "no",     "--dir",
                                   dir_,          "--daemonize", "no"};
  // Reached from other (virtual) hosts, without a password: the test's own
  // network namespace is all it is reachable from.
  if (!netns_path_.empty()) argv.insert(argv.end(), {"--protected-mode", "no"});
  if (cluster_) {
    for (const std::string& a :
         {std::string("--cluster-enabled"), std::string("yes"), std::string("--cluster-config-file"),
          "nodes-" + std::to_string(port_) + ".conf", std::string("--cluster-port"),
          std::to_string(bus_port_), std::string("--cluster-node-timeout"), std::string("3000"),
          // A replica takes over however long it was cut off (a test kills masters).
          std::string("--cluster-replica-validity-factor"), std::string("0")}) {
      argv.push_back(a);
    }
  }
  std::vector<char*> args;
  for (std::string& a : argv) args.push_back(a.data());
  args.push_back(nullptr);
  const std::string log_path = this->log_path();
  const std::size_t log_start = FileSize(log_path);
  const int log_fd = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  const pid_t parent = ::getpid();
  const std::string netns_path = netns_path_;
  pid_ = ::fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    if (::dup2(log_fd, 1) < 0 || ::dup2(log_fd, 2) < 0) ::_exit(127);
    if (!netns_path.empty() && !VirtualNetwork::EnterPath(netns_path.c_str())) ::_exit(126);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  ::close(log_fd);
  // Ready when it says so in its log; it may also die (port taken meanwhile).
  if (!WaitForLogText(log_path, log_start, "Ready to accept connections", pid_)) {
    Kill();
    throw std::runtime_error("redis-server did not become ready:\n" + log());
  }
}

void RedisServer::Kill() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  int status = 0;
  ::waitpid(pid_, &status, 0);
  pid_ = -1;
}

void RedisServer::set_network(std::string netns_path, std::string address) {
  netns_path_ = std::move(netns_path);
  address_ = std::move(address);
}

remote::Reply RedisServer::Command(const std::vector<std::string>& argv) const {
  // Inside the server's namespace, from a thread of its own (setns moves
  // only the calling thread).
  Expected<remote::Reply> reply = Internal("not run");
  auto run = [&] {
    auto conn = remote::RedisConnection::Open(endpoint(), TestConnectOptions());
    reply = conn.ok() ? (*conn)->Command(argv) : Expected<remote::Reply>(conn.status());
  };
  if (netns_path_.empty()) {
    run();
  } else {
    std::thread t([&] {
      if (VirtualNetwork::EnterPath(netns_path_.c_str())) {
        run();
      } else {
        reply = Internal("cannot enter " + netns_path_);
      }
    });
    t.join();
  }
  if (!reply.ok()) throw std::runtime_error(reply.status().ToString());
  return std::move(reply).value();
}

std::string RedisServer::log_path() const { return dir_ + "/redis-" + std::to_string(port_) + ".log"; }

std::string RedisServer::log() const {
  try {
    return ReadFileOrDie(log_path());
  } catch (const std::exception&) {
    return "";
  }
}

RedisCluster::RedisCluster(const std::string& dir, int replicas) : replicas_(replicas) {
  for (int i = 0; i < 3 * (1 + replicas); ++i) nodes_.push_back(std::make_unique<RedisServer>(dir, /*cluster=*/true));
}

void RedisCluster::set_network(const std::string& netns_path, const std::string& address) {
  netns_path_ = netns_path;
  for (auto& node : nodes_) node->set_network(netns_path, address);
}

void RedisCluster::Start() {
  std::vector<std::string> argv;
  // redis-cli reaches nodes in another namespace from inside it.
  if (!netns_path_.empty()) argv = {FindOnPath("nsenter"), "--net=" + netns_path_};
  argv.insert(argv.end(), {FindOnPath("redis-cli"), "--cluster", "create"});
  for (auto& node : nodes_) {
    node->Start();
    argv.push_back(node->endpoint().ToString());
  }
  for (const std::string& a : {std::string("--cluster-replicas"), std::to_string(replicas_), std::string("--cluster-yes")}) {
    argv.push_back(a);
  }
  RunResult created = Run(argv);
  if (created.exit_code != 0) {
    throw std::runtime_error("redis-cli --cluster create failed:\n" + created.out + created.err);
  }
  WaitUntilOk();
}

void RedisCluster::KillAll() {
  for (auto& node : nodes_) node->Kill();
}

void RedisCluster::RestartAll() {
  for (auto& node : nodes_) {
    if (!node->running()) node->Start();
  }
  WaitUntilOk();
}

std::vector<RedisServer*> RedisCluster::Masters() {
  std::vector<RedisServer*> out;
  for (auto& node : nodes_) {
    if (!node->running()) continue;
    const remote::Reply role = node->Command({"ROLE"});
    if (!role.elements.empty() && role.elements[0].str == "master") out.push_back(node.get());
  }
  return out;
}

RedisServer* RedisCluster::ReplicaOf(const RedisServer& master) {
  for (auto& node : nodes_) {
    if (!node->running() || node.get() == &master) continue;
    const remote::Reply role = node->Command({"ROLE"});
    // ["slave", master host, master port, state, offset]
    if (role.elements.size() >= 3 && role.elements[0].str == "slave" &&
        role.elements[2].integer == master.port()) {
      return node.get();
    }
  }
  return nullptr;
}

void RedisCluster::WaitUntilOk() const {
  for (const auto& node : nodes_) {
    if (!node->running()) continue;
    // Offset first, then the state: a change in between is in the log after it.
    const std::size_t from = FileSize(node->log_path());
    if (node->Command({"CLUSTER", "INFO"}).str.find("cluster_state:ok") != std::string::npos) continue;
    if (!WaitForLogText(node->log_path(), from, "Cluster state changed: ok", node->pid())) {
      throw std::runtime_error("the cluster did not become ok:\n" + node->Command({"CLUSTER", "INFO"}).str);
    }
  }
}

RedisServer& RedisCluster::NodeForSlot(int slot) {
  remote::Reply slots = nodes_.front()->Command({"CLUSTER", "SLOTS"});
  for (const remote::Reply& range : slots.elements) {
    if (range.elements[0].integer <= slot && slot <= range.elements[1].integer) {
      const long long port = range.elements[2].elements[1].integer;
      for (auto& node : nodes_) {
        if (node->port() == port) return *node;
      }
    }
  }
  throw std::runtime_error("no node serves slot " + std::to_string(slot));
}

std::string RedisCluster::NodeId(const RedisServer& node) const { return node.Command({"CLUSTER", "MYID"}).str; }

std::vector<std::string> KeysOn(const std::vector<RedisServer*>& nodes, const std::string& pattern) {
  std::vector<std::string> keys;
  for (RedisServer* node : nodes) {
    for (const remote::Reply& key : node->Command({"KEYS", pattern}).elements) keys.push_back(key.str);
  }
  return keys;
}

long long DbSize(const std::vector<RedisServer*>& nodes) {
  long long total = 0;
  for (RedisServer* node : nodes) total += node->Command({"DBSIZE"}).integer;
  return total;
}

int OverwriteKeys(const std::vector<RedisServer*>& nodes, const std::string& pattern,
                  const std::string& value) {
  int n = 0;
  for (RedisServer* node : nodes) {
    for (const remote::Reply& key : node->Command({"KEYS", pattern}).elements) {
      remote::Reply ok = node->Command({"SET", key.str, value});
      if (ok.is_error()) throw std::runtime_error("SET failed: " + ok.str);
      ++n;
    }
  }
  return n;
}

}  // namespace qdcache::testing
