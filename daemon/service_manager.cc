#include "daemon/service_manager.h"

#include <spdlog/spdlog.h>
#include <systemd/sd-daemon.h>

#include <cstring>
#include <string>

namespace qdcache::daemon {
namespace {

void Notify(const std::string& state) {
  // unset_environment = 0: later notifications need NOTIFY_SOCKET too.
  const int r = ::sd_notify(0, state.c_str());
  if (r < 0) spdlog::warn("sd_notify: {}", std::strerror(-r));
}

std::string StatusLine(std::string_view status) {
  std::string line = "STATUS=";
  for (char c : status) line += c == '\n' ? ' ' : c;  // one line: a newline would start another assignment
  return line;
}

}  // namespace

void NotifyReady(std::string_view status) { Notify("READY=1\n" + StatusLine(status)); }
void NotifyStopping(std::string_view status) { Notify("STOPPING=1\n" + StatusLine(status)); }
void NotifyStatus(std::string_view status) { Notify(StatusLine(status)); }

std::unique_ptr<Watchdog> Watchdog::StartIfEnabled(std::function<Status()> healthy) {
  std::uint64_t usec = 0;
  const int enabled = ::sd_watchdog_enabled(0, &usec);
  if (enabled < 0) spdlog::warn("ignoring a malformed WATCHDOG_USEC/WATCHDOG_PID: {}", std::strerror(-enabled));
  if (enabled <= 0 || usec == 0) return nullptr;
  const auto period = std::chrono::microseconds(usec / 2);
  spdlog::info("watchdog: pinging systemd every {} ms while healthy", period.count() / 1000);
  return std::unique_ptr<Watchdog>(new Watchdog(period, std::move(healthy)));
}

Watchdog::Watchdog(std::chrono::microseconds period, std::function<Status()> healthy)
    : period_(period), healthy_(std::move(healthy)), thread_([this] { Run(); }) {}

Watchdog::~Watchdog() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void Watchdog::Run() {
  bool was_healthy = true;
  std::unique_lock lock(mu_);
  while (!stop_) {
    lock.unlock();
    Status health = healthy_();
    if (health.ok()) {
      Notify(was_healthy ? "WATCHDOG=1" : "WATCHDOG=1\nSTATUS=serving (healthy again)");
    } else if (was_healthy) {
      // No ping: if this lasts a whole WatchdogSec=, systemd restarts the daemon.
      spdlog::error("unhealthy, not pinging the watchdog: {}", health.ToString());
      NotifyStatus("unhealthy: " + health.ToString());
    }
    was_healthy = health.ok();
    lock.lock();
    // A timer, not synchronisation: the destructor wakes it at once.
    wake_.wait_for(lock, period_, [this] { return stop_; });
  }
}

}  // namespace qdcache::daemon
