// Fleet-wide single-flight (DESIGN §5): before compiling a key that is
// missing everywhere, a daemon takes a short lease on it in the shared tier;
// others that find the lease wait for the artifact instead of compiling it
// too. The engine sees only this interface; the daemon implements it over
// the remote tier (daemon/fleet_setup.h). Everything fails open: a lease
// that cannot be taken or checked means "compile here".
//
// Thread-safe: every method may be called concurrently.
#pragma once

#include <string>

namespace qdcache::engine {

class FleetLeases {
 public:
  enum class Claim {
    kOwned,        // this daemon holds the lease: compile, publish, Release
    kHeld,         // another daemon holds it: wait for its artifact
    kUnavailable,  // no lease can be had (tier read-only, down, erring): compile here
  };
  virtual ~FleetLeases() = default;

  // Tries to take the lease of artifact `key`.
  [[nodiscard]] virtual Claim Acquire(const std::string& key) = 0;
  // Gives up a lease Acquire answered kOwned for (after the artifact was
  // published, or the compile failed).
  virtual void Release(const std::string& key) = 0;
  // Whether someone holds the lease of `key` now; false when that cannot be
  // told (a waiter that finds no lease and no artifact compiles here).
  [[nodiscard]] virtual bool Held(const std::string& key) = 0;
};

}  // namespace qdcache::engine
