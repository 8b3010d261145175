#include "auth/role.h"

#include <string>

namespace qdcache::auth {

std::string_view RoleName(Role role) {
  switch (role) {
    case Role::kRead:
      return "read";
    case Role::kWrite:
      return "write";
    case Role::kAdmin:
      return "admin";
  }
  return "?";
}

Expected<Role> ParseRole(std::string_view name) {
  for (Role r : {Role::kRead, Role::kWrite, Role::kAdmin}) {
    if (name == RoleName(r)) return r;
  }
  return InvalidArgument("unknown role '" + std::string(name) +
                         "' (expected read, write or admin)");
}

Expected<ReadCompile> ParseReadCompile(std::string_view name) {
  if (name == "serve") return ReadCompile::kServe;
  if (name == "refuse") return ReadCompile::kRefuse;
  return InvalidArgument("unknown read-compile policy '" + std::string(name) +
                         "' (expected serve or refuse)");
}

std::string_view OperationName(Operation op) {
  switch (op) {
    case Operation::kHealth:
      return "health";
    case Operation::kCompile:
      return "Compile";
    case Operation::kLookup:
      return "Lookup";
    case Operation::kExplain:
      return "Explain";
    case Operation::kGetStats:
      return "GetStats";
    case Operation::kResetStats:
      return "GetStats reset";
    case Operation::kList:
      return "List";
    case Operation::kInspect:
      return "Inspect";
    case Operation::kEvict:
      return "Evict";
    case Operation::kVerify:
      return "Verify";
    case Operation::kExport:
      return "Export";
    case Operation::kExportAllTenants:
      return "Export all_tenants";
    case Operation::kImport:
      return "Import";
    case Operation::kImportSigned:
      return "Import (signed entries)";
    case Operation::kShutdown:
      return "Shutdown";
    case Operation::kTargets:
      return "Targets";
  }
  return "?";
}

Role RequiredRole(Operation op) {
  switch (op) {
    case Operation::kHealth:
    case Operation::kCompile:
    case Operation::kLookup:
    case Operation::kExplain:
    case Operation::kGetStats:
    case Operation::kList:
    case Operation::kInspect:
    case Operation::kExport:
    case Operation::kTargets:
      return Role::kRead;
    case Operation::kImportSigned:
      return Role::kWrite;
    case Operation::kResetStats:
    case Operation::kEvict:
    case Operation::kVerify:
    case Operation::kExportAllTenants:
    case Operation::kImport:
    case Operation::kShutdown:
      return Role::kAdmin;
  }
  return Role::kAdmin;  // unreachable; the strictest answer if it were not
}

}  // namespace qdcache::auth
