#include "daemon/fleet_setup.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <random>

#include "common/digest.h"

namespace qdcache::daemon {
namespace {

std::string OwnerId() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  std::random_device random;
  const std::uint64_t nonce = (std::uint64_t{random()} << 32) | random();
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(nonce));
  return std::string(host) + ":" + std::to_string(::getpid()) + ":" + text;
}

}  // namespace

RemoteFleetLeases::RemoteFleetLeases(remote::RemoteTier& tier, std::chrono::milliseconds lease)
    : tier_(tier), lease_(lease), owner_(OwnerId()), renewer_([this] { RenewLoop(); }) {}

RemoteFleetLeases::~RemoteFleetLeases() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  renewer_.join();
}

engine::FleetLeases::Claim RemoteFleetLeases::Acquire(const std::string& key) {
  Expected<bool> taken = tier_.TakeLease(key, owner_, lease_);
  if (!taken.ok()) return Claim::kUnavailable;
  if (!*taken) return Claim::kHeld;
  std::lock_guard lock(mu_);
  owned_.insert(key);
  return Claim::kOwned;
}

void RemoteFleetLeases::Release(const std::string& key) {
  {
    std::lock_guard lock(mu_);
    owned_.erase(key);
  }
  // A release that fails leaves the lease to expire by itself.
  (void)tier_.UpdateLease(key, owner_, std::chrono::milliseconds(0));
}

bool RemoteFleetLeases::Held(const std::string& key) {
  Expected<bool> held = tier_.LeaseHeld(key);
  return held.ok() && *held;
}

void RemoteFleetLeases::RenewLoop() {
  std::unique_lock lock(mu_);
  while (!stopping_) {
    if (cv_.wait_for(lock, lease_ / 3, [&] { return stopping_; })) return;
    const std::set<std::string> keys = owned_;
    lock.unlock();
    for (const std::string& key : keys) {
      Expected<bool> renewed = tier_.UpdateLease(key, owner_, lease_);
      bool still_ours = false;
      {
        std::lock_guard held(mu_);
        still_ours = owned_.count(key) > 0;  // not released meanwhile
      }
      if (renewed.ok() && !*renewed && still_ours) {
        spdlog::warn("fleet lease of {} was lost before its compile finished (expired: the remote was slow "
                     "or unreachable); another daemon may compile it too",
                     ShortKey(key));
      }
    }
    lock.lock();
  }
}

std::shared_ptr<engine::FleetLeases> MakeFleetLeases(const DaemonOptions& options, remote::RemoteTier* tier) {
  if (tier == nullptr || tier->read_only() || options.remote_lease.count() == 0) return nullptr;
  auto leases = std::make_shared<RemoteFleetLeases>(*tier, options.remote_lease);
  spdlog::info("fleet single-flight: compile leases of {} ms as {}; a compile whose lease another daemon holds "
               "waits up to {} s for its artifact",
               options.remote_lease.count(), leases->owner(),
               std::chrono::duration_cast<std::chrono::seconds>(FleetWaitLimit(options)).count());
  return leases;
}

std::chrono::milliseconds FleetWaitLimit(const DaemonOptions& options) {
  const std::chrono::milliseconds compile =
      options.compile_timeout.count() > 0 ? std::chrono::milliseconds(options.compile_timeout)
                                          : std::chrono::milliseconds(std::chrono::minutes(10));
  return compile + options.remote_lease;
}

}  // namespace qdcache::daemon
