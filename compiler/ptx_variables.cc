#include "compiler/ptx_variables.h"

#include <algorithm>
#include <charconv>
#include <optional>
#include <string>
#include <vector>

#include "compiler/ptx_tokens.h"

namespace qdcache::compiler {
namespace {

constexpr std::uint64_t kSaturated = UINT64_MAX;

std::uint64_t Multiply(std::uint64_t a, std::uint64_t b) {
  if (a == 0 || b == 0) return 0;
  return a > kSaturated / b ? kSaturated : a * b;
}

bool IsStateSpace(std::string_view t) {
  return t == ".global" || t == ".const" || t == ".shared" || t == ".local";
}

// Bytes of a PTX fundamental type, or 0 for one that is not.
std::uint64_t TypeBytes(std::string_view t) {
  if (t == ".b8" || t == ".u8" || t == ".s8" || t == ".e4m3" || t == ".e5m2") return 1;
  if (t == ".b16" || t == ".u16" || t == ".s16" || t == ".f16" || t == ".bf16" || t == ".e4m3x2" || t == ".e5m2x2")
    return 2;
  if (t == ".b32" || t == ".u32" || t == ".s32" || t == ".f32" || t == ".f16x2" || t == ".bf16x2" || t == ".tf32")
    return 4;
  if (t == ".b64" || t == ".u64" || t == ".s64" || t == ".f64") return 8;
  if (t == ".b128") return 16;
  return 0;
}

// A decimal or 0x-hexadecimal count; nullopt when it is none; kSaturated
// when it does not fit 64 bits.
std::optional<std::uint64_t> ParseDimension(std::string_view text) {
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    text.remove_prefix(2);
    base = 16;
  }
  std::uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  if (end != text.data() + text.size() || text.empty()) return std::nullopt;
  if (ec == std::errc::result_out_of_range) return kSaturated;
  if (ec != std::errc()) return std::nullopt;
  return value;
}

struct Declarator {
  std::string name;
  std::optional<std::uint64_t> elements;  // product of the dimensions; nullopt: unknown or unsized
};

// "g[10][20]" (its tokens joined): the name and the element count.
Declarator ParseDeclarator(const std::string& text) {
  Declarator d;
  const std::size_t bracket = text.find('[');
  d.name = text.substr(0, bracket);
  std::uint64_t elements = 1;
  for (std::size_t open = bracket; open != std::string::npos; open = text.find('[', open + 1)) {
    const std::size_t close = text.find(']', open);
    if (close == std::string::npos) return d;
    const std::optional<std::uint64_t> count = ParseDimension(std::string_view(text).substr(open + 1, close - open - 1));
    if (!count) return d;
    elements = Multiply(elements, *count);
  }
  d.elements = elements;
  return d;
}

// Directives that end at the end of their line, not at a semicolon.
bool EndsAtLineEnd(std::string_view t) {
  return t == ".version" || t == ".target" || t == ".address_size" || t == ".file" || t == ".loc";
}

// One statement's tokens; OK unless it defines a variable over `max_bytes`.
Status CheckStatement(const std::vector<std::string_view>& statement, std::uint64_t max_bytes) {
  std::size_t i = 0;
  while (i < statement.size() && (statement[i] == ".visible" || statement[i] == ".weak" || statement[i] == ".common")) ++i;
  if (i >= statement.size() || !IsStateSpace(statement[i])) return Status::Ok();
  const std::string_view space = statement[i++];
  std::uint64_t element_bytes = 0;
  std::uint64_t lanes = 1;
  for (; i < statement.size() && !statement[i].empty() && statement[i][0] == '.'; ++i) {
    const std::string_view t = statement[i];
    if (t == ".align" && i + 1 < statement.size()) ++i;
    if (t == ".v2" || t == ".v4" || t == ".v8") lanes = static_cast<std::uint64_t>(t[2] - '0');
    if (const std::uint64_t bytes = TypeBytes(t); bytes != 0) element_bytes = bytes;
  }
  if (element_bytes == 0) return Status::Ok();
  std::string text;
  auto check = [&]() -> Status {
    const Declarator d = ParseDeclarator(text);
    text.clear();
    if (!d.elements) return Status::Ok();
    const std::uint64_t bytes = Multiply(Multiply(element_bytes, lanes), *d.elements);
    if (bytes <= max_bytes) return Status::Ok();
    return InvalidArgument("PTX variable " + d.name + " (" + std::string(space) + ") is " +
                           (bytes == kSaturated ? std::string("at least 2^64 - 1") : std::to_string(bytes)) +
                           " bytes; an object may be at most " + std::to_string(max_bytes) + " bytes");
  };
  for (; i < statement.size() && statement[i] != "="; ++i) {
    if (statement[i] == ",") {
      if (Status s = check(); !s.ok()) return s;
    } else {
      text += statement[i];
    }
  }
  return check();
}

}  // namespace

Status CheckPtxVariableSizes(std::string_view canonical_ptx, std::uint64_t max_bytes) {
  std::vector<std::string_view> statement;
  for (std::size_t pos = 0; pos < canonical_ptx.size();) {
    const std::size_t eol = std::min(canonical_ptx.find('\n', pos), canonical_ptx.size());
    const std::string_view line = canonical_ptx.substr(pos, eol - pos);
    pos = eol + 1;
    PtxTokens tokens(line);
    std::string_view t = tokens.Next();
    if (EndsAtLineEnd(t)) continue;  // a statement of one line, never a variable
    for (; !t.empty(); t = tokens.Next()) {
      if (t == ";" || t == "{" || t == "}") {
        if (Status s = CheckStatement(statement, max_bytes); !s.ok()) return s;
        statement.clear();
      } else {
        statement.push_back(t);
      }
    }
  }
  return CheckStatement(statement, max_bytes);
}

}  // namespace qdcache::compiler
