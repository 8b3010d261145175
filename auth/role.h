// Roles and what each may do (DESIGN §7, docs/protocol.md).
//
//   read   Lookup, Explain, GetStats, List, Inspect, Export (own aliases),
//          Targets, health; Compile as ReadCompile says (served without writing
//          anything, or refused).
//   write  read + Compile that stores artifacts and records aliases.
//   admin  write + Evict, Verify, resetting the stats, Export of every
//          tenant's aliases, Import (it stores artifacts whose keys the
//          daemon did not compute), and Shutdown.
//
// Each role includes the ones before it.
#pragma once

#include <string_view>

#include "common/expected.h"

namespace qdcache::auth {

enum class Role { kRead = 0, kWrite = 1, kAdmin = 2 };

// "read", "write", "admin".
[[nodiscard]] std::string_view RoleName(Role role);
// Inverse of RoleName; INVALID_ARGUMENT naming the accepted values otherwise.
[[nodiscard]] Expected<Role> ParseRole(std::string_view name);
// True when `have` includes `need`.
[[nodiscard]] inline bool Includes(Role have, Role need) {
  return static_cast<int>(have) >= static_cast<int>(need);
}

// What a `read` peer's Compile gets.
enum class ReadCompile {
  kServe,   // compiled or served from the cache, but nothing is written
  kRefuse,  // PERMISSION_DENIED
};
// "serve" | "refuse"; INVALID_ARGUMENT otherwise.
[[nodiscard]] Expected<ReadCompile> ParseReadCompile(std::string_view name);

// Everything a peer can ask for, one per RPC (and the stats reset, which is
// a flag of GetStats but needs more than reading the stats).
enum class Operation {
  kHealth,
  kCompile,
  kLookup,
  kExplain,
  kGetStats,
  kResetStats,
  kList,
  kInspect,
  kEvict,
  kVerify,
  kExport,            // the caller's own aliases, and the shared artifacts
  kExportAllTenants,  // Export with all_tenants
  kImport,        // on a daemon that does not check signatures: any artifact bytes
  kImportSigned,  // on a daemon that does (trusted keys): only entries signed by them
  kShutdown,  // drain and stop the daemon
  kTargets,   // what the daemon compiles for
};

// The RPC's name as the protocol spells it ("Compile", "GetStats reset").
[[nodiscard]] std::string_view OperationName(Operation op);

// The least role that may perform `op` at all. Compile needs only `read`
// (then ReadCompile applies); storing its result needs `write`.
[[nodiscard]] Role RequiredRole(Operation op);

}  // namespace qdcache::auth
