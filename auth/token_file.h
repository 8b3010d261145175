// Bearer tokens of TCP peers, read from a token file.
//
// Format: one token per line, "NAME ROLE TOKEN", separated by spaces or tabs;
// '#' starts a comment line; blank lines are ignored.
//   NAME   [A-Za-z0-9._@-], 1..64 characters; the peer's tenant is "token:NAME"
//   ROLE   read | write | admin
//   TOKEN  16..4096 visible ASCII characters (no spaces)
// Names and tokens must be unique. Tokens never appear in error messages: a
// malformed line is reported by its number and the field at fault.
//
// The table keeps only SHA-256 digests of the tokens, and Find compares the
// presented token against every entry in time that does not depend on which
// entry (or which byte) differs.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "auth/role.h"
#include "common/digest.h"
#include "common/expected.h"

namespace qdcache::auth {

struct TokenEntry {
  std::string name;
  Role role = Role::kRead;
  Digest token_digest{};  // SHA-256 of the token
};

class TokenTable {
 public:
  TokenTable() = default;  // empty: accepts no token

  // Parses the contents of a token file; `origin` names it in errors
  // ("<origin>:<line>: ..."). INVALID_ARGUMENT on a malformed line, a
  // duplicate name or token, or a file without any token.
  [[nodiscard]] static Expected<TokenTable> Parse(std::string_view text, std::string_view origin);

  // Reads and parses `path`. FAILED_PRECONDITION when it is not a regular file
  // or group/others may read or write it (tokens are secrets: chmod 600);
  // NOT_FOUND/PERMISSION_DENIED when it cannot be opened; Parse's errors.
  [[nodiscard]] static Expected<TokenTable> Load(const std::string& path);

  // The entry whose token equals `token`, or nullptr. Thread-safe (const).
  [[nodiscard]] const TokenEntry* Find(std::string_view token) const;

  [[nodiscard]] std::size_t size() const { return entries_.size(); }
  [[nodiscard]] bool empty() const { return entries_.empty(); }

 private:
  std::vector<TokenEntry> entries_;
};

// True when a and b hold the same bytes, examining every byte either way.
[[nodiscard]] bool ConstantTimeEqual(const Digest& a, const Digest& b);

}  // namespace qdcache::auth
