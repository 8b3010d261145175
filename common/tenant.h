// Tenants: the identity that fast-key aliases belong to, spelt the one way
// auth/ makes them and everything that stores or checks one reads them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace qdcache {

// "uid:1000": a unix-socket peer.
[[nodiscard]] inline std::string UidTenant(std::uint32_t uid) { return "uid:" + std::to_string(uid); }
// "token:ci": a TCP peer with a bearer token named `name`.
[[nodiscard]] inline std::string TokenTenant(std::string_view name) { return "token:" + std::string(name); }
// "cert:builder-7": a TCP peer with a verified client certificate of CN `cn`.
[[nodiscard]] inline std::string CertTenant(std::string_view cn) { return "cert:" + std::string(cn); }

// True for a tenant of one of those forms with a non-empty name.
[[nodiscard]] inline bool IsTenant(std::string_view tenant) {
  for (std::string_view prefix : {"uid:", "token:", "cert:"}) {
    if (tenant.substr(0, prefix.size()) == prefix && tenant.size() > prefix.size()) return true;
  }
  return false;
}

}  // namespace qdcache
