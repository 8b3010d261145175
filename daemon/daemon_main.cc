#include "daemon/daemon_main.h"

#include <fcntl.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <string_view>

#include "backends/worker_main.h"
#include "daemon/log_format.h"
#include "daemon/remote_setup.h"
#include "daemon/server.h"
#include "daemon/service_manager.h"
#include "daemon/socket_activation.h"

namespace qdcache::daemon {
namespace {

// Blocks termination signals in every thread (threads inherit the mask), so
// the main thread can take them synchronously with sigwait.
sigset_t BlockTerminationSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  ::signal(SIGPIPE, SIG_IGN);
  return set;
}

void AnnounceReady(int ready_fd) {
  if (ready_fd < 0) return;
  const char msg[] = "ready\n";
  [[maybe_unused]] ssize_t n = ::write(ready_fd, msg, sizeof msg - 1);
  ::close(ready_fd);
}

}  // namespace

int RunDaemonMain(int argc, const char* const* argv) {
  if (argc > 1 && std::string_view(argv[1]) == compiler::kCompileWorkerFlag) {
    return compiler::RunCompileWorkerMain(argc, argv);
  }
  TakeRemotePasswordFromEnvironment();  // before any thread; workers never see it
  sigset_t signals = BlockTerminationSignals();
  Expected<DaemonOptions> parsed = ParseDaemonFlags(argc, argv);
  if (!parsed.ok()) {
    if (parsed.status().code() == Code::kCancelled) {  // --help / --version / --print-config
      std::fputs(parsed.status().message().c_str(), stdout);
      return 0;
    }
    std::fprintf(stderr, "qdcached: %s\n", parsed.status().message().c_str());
    return 2;
  }
  DaemonOptions options = WithDefaults(std::move(parsed).value());
  // Only this process may hold the readiness pipe: a compile worker keeping
  // it open would hide a failed start from whoever waits on it.
  if (options.ready_fd >= 0) ::fcntl(options.ready_fd, F_SETFD, FD_CLOEXEC);
  SetUpDaemonLog(options.log_format, options.log_level);

  // Before anything forks: the LISTEN_* variables are for this process only.
  Expected<int> activation_fd = TakeActivationSocket();
  if (!activation_fd.ok()) {
    spdlog::critical("cannot start: {}", activation_fd.status().ToString());
    return 1;
  }
  NotifyStatus("starting: opening the store, probing the toolchain");
  Expected<std::unique_ptr<Server>> server = Server::Start(options, *activation_fd,
                                                          // Idle exit takes the SIGTERM path: the watcher thread
                                                          // signals this process, and the wait below drains and
                                                          // exits as for any SIGTERM.
                                                          [] { ::kill(::getpid(), SIGTERM); });
  if (!server.ok()) {
    spdlog::critical("cannot start: {}", server.status().ToString());
    NotifyStatus("cannot start: " + server.status().ToString());
    return 1;
  }
  AnnounceReady(options.ready_fd);
  NotifyReady("serving unix:" + (*server)->unix_socket_path());
  std::unique_ptr<Watchdog> watchdog = Watchdog::StartIfEnabled([&server] { return (*server)->CheckHealth(); });
  siginfo_t info{};
  while (sigwaitinfo(&signals, &info) < 0) {
  }
  if (info.si_pid == ::getpid()) {
    spdlog::info("shutting down (idle, or asked by a Shutdown call)");
  } else {
    spdlog::info("received {}, shutting down", info.si_signo == SIGTERM ? "SIGTERM" : "SIGINT");
  }
  watchdog.reset();  // systemd stops watching once told STOPPING=1
  NotifyStopping("draining in-flight requests");
  (*server)->Shutdown();
  return 0;
}

}  // namespace qdcache::daemon
