#include "auth/token_file.h"

#include <map>

#include "common/file_read.h"

namespace qdcache::auth {
namespace {

constexpr std::size_t kMaxNameLength = 64;
constexpr std::size_t kMinTokenLength = 16;
constexpr std::size_t kMaxTokenLength = 4096;
constexpr std::size_t kMaxFileBytes = 1 << 20;

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

std::vector<std::string_view> Fields(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && IsBlank(line[i])) ++i;
    const std::size_t start = i;
    while (i < line.size() && !IsBlank(line[i])) ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
  return out;
}

bool ValidName(std::string_view name) {
  if (name.empty() || name.size() > kMaxNameLength) return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '@' || c == '-';
    if (!ok) return false;
  }
  return true;
}

bool VisibleAscii(std::string_view s) {
  for (char c : s) {
    if (c < 0x21 || c > 0x7e) return false;
  }
  return true;
}

}  // namespace

bool ConstantTimeEqual(const Digest& a, const Digest& b) {
  unsigned diff = 0;
  for (std::size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned>(a[i] ^ b[i]);
  return diff == 0;
}

Expected<TokenTable> TokenTable::Parse(std::string_view text, std::string_view origin) {
  TokenTable table;
  std::map<std::string, int, std::less<>> name_lines;
  std::map<Digest, std::pair<std::string, int>> token_lines;
  int line_no = 0;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    const std::vector<std::string_view> fields = Fields(line);
    if (fields.empty() || fields[0].front() == '#') continue;
    auto fail = [&](const std::string& why) {
      return InvalidArgument(std::string(origin) + ":" + std::to_string(line_no) + ": " + why);
    };
    if (fields.size() != 3) {
      return fail("expected 'NAME ROLE TOKEN', found " + std::to_string(fields.size()) +
                  " field(s)");
    }
    const std::string_view name = fields[0], role_name = fields[1], token = fields[2];
    if (!ValidName(name)) {
      return fail("the name must be 1-64 characters of A-Z a-z 0-9 . _ @ -");
    }
    Expected<Role> role = ParseRole(role_name);
    if (!role.ok()) return fail(role.status().message());
    if (token.size() < kMinTokenLength || token.size() > kMaxTokenLength || !VisibleAscii(token)) {
      return fail("the token of '" + std::string(name) + "' must be " +
                  std::to_string(kMinTokenLength) + "-" + std::to_string(kMaxTokenLength) +
                  " visible ASCII characters");
    }
    if (auto it = name_lines.find(name); it != name_lines.end()) {
      return fail("the name '" + std::string(name) + "' is already used on line " +
                  std::to_string(it->second));
    }
    const Digest digest = Sha256(token);
    if (auto it = token_lines.find(digest); it != token_lines.end()) {
      return fail("the token of '" + std::string(name) + "' is the same as that of '" +
                  it->second.first + "' (line " + std::to_string(it->second.second) + ")");
    }
    name_lines.emplace(std::string(name), line_no);
    token_lines.emplace(digest, std::make_pair(std::string(name), line_no));
    table.entries_.push_back(TokenEntry{std::string(name), *role, digest});
  }
  if (table.entries_.empty()) return InvalidArgument(std::string(origin) + ": holds no tokens");
  return table;
}

Expected<TokenTable> TokenTable::Load(const std::string& path) {
  QDC_ASSIGN_OR_RETURN(std::string text,
                       ReadSmallFile(path, "token file " + path, kMaxFileBytes, FileAccess::kPrivate));
  return Parse(text, path);
}

const TokenEntry* TokenTable::Find(std::string_view token) const {
  const Digest presented = Sha256(token);
  const TokenEntry* found = nullptr;
  for (const TokenEntry& e : entries_) {
    // No early exit: every entry is compared whether or not one matched.
    const bool match = ConstantTimeEqual(e.token_digest, presented);
    found = match ? &e : found;
  }
  return found;
}

}  // namespace qdcache::auth
