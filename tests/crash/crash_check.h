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

// With `daemon` running: every guaranteed kernel is a HIT with the same key
// and payload digest, every one sent with a fast key an ALIAS_HIT; the
// others are that too, or compiled again (their alias missing) with the same
// key and bytes; Verify drops nothing and no corrupt entry was counted
// unless the store was `damaged`; nothing was compiled but those, and no
// store error was counted. Returns the violations (empty when all hold).
[[nodiscard]] std::vector<std::string> CheckServedBack(testing::DaemonProcess& daemon,
                                                       const std::vector<Acknowledged>& acked,
                                                       bool damaged);

// On a store no process holds open: the persisted counters equal the entries
// actually stored, and every entry has its value, its info and exactly one
// access-index entry. Returns the violations.
[[nodiscard]] std::vector<std::string> AuditStore(const std::string& store_dir);

}  // namespace qdcache::crash
