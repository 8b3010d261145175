// Talking to systemd as a Type=notify service (sd_notify(3)): readiness,
// stopping, status lines and watchdog keep-alives. Every call is a no-op
// when the daemon was not started by a service manager (no NOTIFY_SOCKET).
// Thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string_view>
#include <thread>

#include "common/status.h"

namespace qdcache::daemon {

// READY=1 with a STATUS= line: sent once the daemon serves.
void NotifyReady(std::string_view status);
// STOPPING=1 with a STATUS= line: sent when draining starts.
void NotifyStopping(std::string_view status);
// STATUS= only.
void NotifyStatus(std::string_view status);

// Keep-alive pings for WatchdogSec=.
class Watchdog {
 public:
  // When the service manager asked for pings (WATCHDOG_USEC set, and
  // WATCHDOG_PID unset or this process), starts a thread that sends
  // WATCHDOG=1 now and then every half interval, each time only if `healthy`
  // returns OK; an unhealthy daemon stops pinging (and says why in STATUS=),
  // so systemd restarts it. Returns null when no pings were asked for.
  // `healthy` must stay callable until the Watchdog is destroyed.
  [[nodiscard]] static std::unique_ptr<Watchdog> StartIfEnabled(std::function<Status()> healthy);
  ~Watchdog();  // stops pinging and joins the thread
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

 private:
  Watchdog(std::chrono::microseconds period, std::function<Status()> healthy);
  void Run();

  const std::chrono::microseconds period_;
  const std::function<Status()> healthy_;
  std::mutex mu_;
  std::condition_variable wake_;
  bool stop_ = false;  // guarded by mu_
  std::thread thread_;
};

}  // namespace qdcache::daemon
