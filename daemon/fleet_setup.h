// Fleet-wide single-flight over the remote tier (engine/fleet_leases.h):
// compile leases in Redis (remote::RemoteTier::TakeLease), owned by this
// daemon's id (HOST:PID:RANDOM), renewed while the compile runs so that a
// long compile keeps its lease and a daemon that dies lets it expire within
// --remote-lease. No leases from a read-only daemon, and none while the
// remote is down or erring (the breaker answers at once): compiles then run
// here, as without a fleet.
#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "daemon/daemon_options.h"
#include "engine/fleet_leases.h"
#include "remote/remote_tier.h"

namespace qdcache::daemon {

class RemoteFleetLeases final : public engine::FleetLeases {
 public:
  // `tier` must outlive this object. `lease`: how long a lease lasts without
  // renewal (renewed every third of it).
  RemoteFleetLeases(remote::RemoteTier& tier, std::chrono::milliseconds lease);
  ~RemoteFleetLeases() override;  // stops renewing (the leases expire)

  [[nodiscard]] Claim Acquire(const std::string& key) override;
  void Release(const std::string& key) override;
  [[nodiscard]] bool Held(const std::string& key) override;

  [[nodiscard]] const std::string& owner() const { return owner_; }

 private:
  void RenewLoop();

  remote::RemoteTier& tier_;
  const std::chrono::milliseconds lease_;
  const std::string owner_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::set<std::string> owned_;  // guarded by mu_
  bool stopping_ = false;        // guarded by mu_
  std::thread renewer_;
};

// The leases for the engine (EngineConfig::fleet), or null: no remote, a
// read-only one, or --remote-lease 0.
[[nodiscard]] std::shared_ptr<engine::FleetLeases> MakeFleetLeases(const DaemonOptions& options,
                                                                  remote::RemoteTier* tier);

// How long a compile waits for another daemon's lease before compiling here:
// the compile timeout (10 minutes without one) and one lease time.
[[nodiscard]] std::chrono::milliseconds FleetWaitLimit(const DaemonOptions& options);

}  // namespace qdcache::daemon
