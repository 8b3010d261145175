// The end of the crash test: with the daemon restarted on the store that
// survived every kill, each acknowledged artifact must be served back
// byte-identical, the store must verify clean, and its counters must match
// what it holds.
#pragma once

#include <string>
#include <vector>

#include "tests/crash/crash_oracle.h"
#include "tests/support/daemon_process.h"

namespace qdcache::crash {

// With `daemon` running: every acknowledged kernel is a HIT with the same key
// and payload digest; every one sent with a fast key is an ALIAS_HIT; Verify
// drops nothing; nothing was compiled and no store error or corrupt entry
// was counted. Returns the violations (empty when all hold).
[[nodiscard]] std::vector<std::string> CheckServedBack(testing::DaemonProcess& daemon,
                                                       const std::vector<Acknowledged>& acked);

// On a store no process holds open: the persisted counters equal the entries
// actually stored, and every entry has its value, its info and exactly one
// access-index entry. Returns the violations.
[[nodiscard]] std::vector<std::string> AuditStore(const std::string& store_dir);

}  // namespace qdcache::crash
