// A real qdcached process on a temporary socket and store, for integration
// tests. Start() returns once the daemon reports readiness through
// --ready-fd (no polling, no sleeps).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "client/client.h"
#include "tests/support/subprocess.h"

namespace qdcache::testing {

class DaemonProcess {
 public:
  // `dir` holds the socket ("qdcached.sock") and the store ("store/").
  explicit DaemonProcess(std::string dir, std::vector<std::string> extra_args = {});
  ~DaemonProcess();  // SIGKILLs a daemon still running

  // Starts the daemon and waits until it serves. Throws on failure, with the
  // daemon's stderr in the message.
  void Start();
  // Start in two halves: Launch forks and executes the daemon and returns at
  // once (it is still opening its store, starting workers...); AwaitReady
  // then waits for it to serve, as Start does. Kill may come in between.
  void Launch();
  void AwaitReady();
  // Replaces the extra arguments for the next Start or Launch.
  void set_extra_args(std::vector<std::string> args) { extra_args_ = std::move(args); }
  // Runs `setup` in the forked child just before it execs the daemon (e.g.
  // PrivateTmpfs::Enter); false makes the child exit with 126. It runs
  // between fork and exec, so it may only make system calls.
  void set_child_setup(std::function<bool()> setup) { child_setup_ = std::move(setup); }
  // Environment changes for the daemon ("NAME=VALUE" sets, "NAME" removes).
  void set_env(EnvChanges env) { env_ = std::move(env); }
  // Socket activation as systemd does it: `listen_fd` (a listening socket the
  // test owns; the daemon gets a duplicate) becomes the daemon's fd 3, with
  // LISTEN_FDS=1 and LISTEN_PID set to the daemon's pid. Readiness then
  // comes through fd 4.
  void set_activation_socket(int listen_fd) { activation_fd_ = listen_fd; }
  // Leaves --socket and --store off the command line: the config file or
  // environment given to the daemon must name socket_path() and store_dir().
  void set_paths_from_config() { paths_on_command_line_ = false; }
  // The daemon's --log-level (default "debug": tests read its log).
  void set_log_level(std::string level) { log_level_ = std::move(level); }
  // SIGTERM and wait; returns the exit status (-1 when killed by a signal).
  int Stop();
  // SIGKILL and wait.
  void Kill();
  // Waits, up to `deadline`, for the daemon to exit by itself (e.g.
  // --idle-exit): its exit status (-1 when killed by a signal), or nullopt
  // if it still runs at the deadline (it is left running then).
  std::optional<int> WaitForExit(std::chrono::seconds deadline);

  bool running() const { return pid_ > 0; }
  // True if the process Start()ed is still alive (has not exited or died);
  // reaps it otherwise. Stronger than running(), which only says that this
  // object has not stopped it.
  bool Alive();
  pid_t pid() const { return pid_; }
  const std::string& socket_path() const { return socket_; }
  const std::string& store_dir() const { return store_; }
  std::string log() const;  // the daemon's stderr so far
  const std::string& log_path() const { return log_path_; }
  // "HOST:PORT" the daemon reported listening on (for --listen HOST:0, the
  // port the kernel chose). Throws when it reported none.
  std::string TcpAddress() const;
  // "HOST:PORT" of the metrics endpoint the daemon reported
  // (--metrics-listen; with port 0, the port the kernel chose). Throws when
  // it reported none.
  std::string MetricsAddress() const;

  std::unique_ptr<client::Client> Connect() const;
  // A client whose lookups take gRPC even on the unix socket (no lean
  // transport): for tests of the gRPC methods themselves.
  std::unique_ptr<client::Client> ConnectGrpcOnly() const;

 private:
  int Wait();
  std::string ReportedAddress(std::string_view marker, const char* ends, const char* what) const;

  std::string dir_, socket_, store_, log_path_;
  std::vector<std::string> extra_args_;
  std::function<bool()> child_setup_;
  EnvChanges env_;
  int activation_fd_ = -1;
  bool paths_on_command_line_ = true;
  std::string log_level_ = "debug";
  pid_t pid_ = -1;
  int ready_fd_ = -1;  // between Launch and AwaitReady
};

// On scope exit (also when a REQUIRE throws): SIGKILLs the daemon, ending
// its clients' calls, and joins the client threads, which would otherwise
// be destroyed joinable (std::terminate).
class KillAndJoin {
 public:
  KillAndJoin(DaemonProcess& daemon, std::vector<std::thread>& threads)
      : daemon_(daemon), threads_(threads) {}
  ~KillAndJoin() {
    daemon_.Kill();
    for (std::thread& t : threads_) {
      if (t.joinable()) t.join();
    }
  }
  KillAndJoin(const KillAndJoin&) = delete;
  KillAndJoin& operator=(const KillAndJoin&) = delete;

 private:
  DaemonProcess& daemon_;
  std::vector<std::thread>& threads_;
};

// Waits up to `deadline` for process `pid` (a child or not) to terminate,
// without reaping it: true once it has (or no such process exists).
bool WaitForProcessExit(pid_t pid, std::chrono::milliseconds deadline);

// The daemon's stats over its unix socket; throws if the call fails.
v1::Stats StatsOf(const DaemonProcess& daemon);

// Looks up `d`'s fast key (with its namespace and target); throws if the call
// itself fails.
v1::CompileResult LookupOne(const DaemonProcess& daemon, const v1::KernelDescriptor& d);

// Paths of the built binaries (set by CMake).
std::string DaemonBinary();
std::string CliBinary();
std::string TestData(const std::string& relative);

}  // namespace qdcache::testing
