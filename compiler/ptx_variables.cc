#include "compiler/ptx_variables.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "compiler/ir_limits.h"
#include "compiler/ptx_text.h"
#include "compiler/ptx_tokens.h"

namespace qdcache::compiler {
namespace {

std::string Bytes(std::uint64_t bytes) {
  return (bytes == kSaturatedBytes ? std::string("at least 2^64 - 1") : std::to_string(bytes)) + " bytes";
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

// A constant integer expression of a dimension: PTX's integer literals
// (decimal, 0x hexadecimal, 0b binary, 0 octal, an optional U suffix) with
// + - * / % << >> and parentheses. Saturates at kSaturatedBytes instead of
// wrapping; nullopt when the text is not such an expression.
class DimensionParser {
 public:
  explicit DimensionParser(std::string_view text) : text_(text) {}

  std::optional<std::uint64_t> Parse() {
    const std::optional<std::uint64_t> value = Sum();
    if (!value || pos_ != text_.size()) return std::nullopt;
    return value;
  }

 private:
  bool Take(std::string_view op) {
    if (text_.substr(pos_, op.size()) != op) return false;
    pos_ += op.size();
    return true;
  }

  std::optional<std::uint64_t> Sum() {
    std::optional<std::uint64_t> value = Product();
    while (value) {
      if (Take("+")) {
        const auto rhs = Product();
        value = rhs ? std::optional(SaturatingAdd(*value, *rhs)) : std::nullopt;
      } else if (Take("-")) {
        const auto rhs = Product();
        if (!rhs || *rhs > *value) return std::nullopt;  // negative: not a size
        value = *value == kSaturatedBytes ? kSaturatedBytes : *value - *rhs;
      } else {
        break;
      }
    }
    return value;
  }

  std::optional<std::uint64_t> Product() {
    std::optional<std::uint64_t> value = Shift();
    while (value) {
      const bool multiply = Take("*");
      if (!multiply && text_.substr(pos_, 1) != "/" && text_.substr(pos_, 1) != "%") break;
      const char op = multiply ? '*' : text_[pos_++];
      const auto rhs = Shift();
      if (!rhs || (op != '*' && *rhs == 0)) return std::nullopt;
      if (op == '*') value = SaturatingMultiply(*value, *rhs);
      // A saturated operand makes any quotient or remainder unknown: as large as can be.
      else if (*value == kSaturatedBytes || *rhs == kSaturatedBytes) value = kSaturatedBytes;
      else value = op == '/' ? *value / *rhs : *value % *rhs;
    }
    return value;
  }

  std::optional<std::uint64_t> Shift() {
    std::optional<std::uint64_t> value = Primary();
    while (value) {
      const bool left = Take("<<");
      if (!left && !Take(">>")) break;
      const auto rhs = Primary();
      if (!rhs) return std::nullopt;
      if (left) {
        value = *rhs >= 64 || *value > (kSaturatedBytes >> *rhs) ? (*value == 0 ? 0 : kSaturatedBytes) : *value << *rhs;
      } else {
        value = *value == kSaturatedBytes ? kSaturatedBytes : (*rhs >= 64 ? 0 : *value >> *rhs);
      }
    }
    return value;
  }

  std::optional<std::uint64_t> Primary() {
    if (Take("(")) {
      const std::optional<std::uint64_t> value = Sum();
      if (!value || !Take(")")) return std::nullopt;
      return value;
    }
    return Literal();
  }

  std::optional<std::uint64_t> Literal() {
    int base = 10;
    if (Take("0x") || Take("0X")) {
      base = 16;
    } else if (Take("0b") || Take("0B")) {
      base = 2;
    } else if (text_.substr(pos_, 1) == "0" && pos_ + 1 < text_.size() && text_[pos_ + 1] >= '0' &&
               text_[pos_ + 1] <= '7') {
      base = 8;
    }
    std::uint64_t value = 0;
    const char* begin = text_.data() + pos_;
    auto [end, ec] = std::from_chars(begin, text_.data() + text_.size(), value, base);
    if (end == begin) return std::nullopt;
    pos_ += static_cast<std::size_t>(end - begin);
    if (pos_ < text_.size() && (text_[pos_] == 'U' || text_[pos_] == 'u')) ++pos_;
    if (ec == std::errc::result_out_of_range) return kSaturatedBytes;
    if (ec != std::errc()) return std::nullopt;
    return value;
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

// Directives that end at the end of their line, not at a semicolon.
bool EndsAtLineEnd(std::string_view t) {
  return t == ".version" || t == ".target" || t == ".address_size" || t == ".file" || t == ".loc";
}

// Sums the variables' sizes per state space, refusing any one, or any
// space's total, past the bound.
class SizeChecker {
 public:
  explicit SizeChecker(std::uint64_t max_bytes) : max_bytes_(max_bytes) {}

  // One statement's tokens (an initializer's braces and commas included).
  Status Statement(const std::vector<std::string_view>& s) {
    std::size_t i = 0;
    while (i < s.size() && (s[i] == ".visible" || s[i] == ".weak" || s[i] == ".common")) ++i;
    if (i >= s.size() || !IsStateSpace(s[i])) return Status::Ok();  // also .extern: no storage here
    const std::string_view space = s[i++];
    std::uint64_t element_bytes = 0;
    std::uint64_t lanes = 1;
    for (; i < s.size() && (s[i][0] == '.' || s[i] == "("); ++i) {
      if (s[i] == "(") {  // .attribute(.managed) and the like
        for (int depth = 0; i < s.size(); ++i) {
          depth += s[i] == "(" ? 1 : s[i] == ")" ? -1 : 0;
          if (depth == 0) break;
        }
        continue;
      }
      if (s[i] == ".align" && i + 1 < s.size()) ++i;
      if (s[i] == ".v2" || s[i] == ".v4" || s[i] == ".v8") lanes = static_cast<std::uint64_t>(s[i][2] - '0');
      if (const std::uint64_t bytes = TypeBytes(s[i]); bytes != 0) element_bytes = bytes;
    }
    if (element_bytes == 0) return Status::Ok();  // .texref and the like: ptxas's to judge
    // Declarators, separated by commas outside initializers.
    std::string declarator;
    int depth = 0;
    bool initializer = false;
    for (; i <= s.size(); ++i) {
      const std::string_view t = i < s.size() ? s[i] : ",";
      if (depth == 0 && t == ",") {
        if (Status st = Declarator(declarator, space, SaturatingMultiply(element_bytes, lanes)); !st.ok()) return st;
        declarator.clear();
        initializer = false;
      } else if (t == "{" || t == "(") {
        ++depth;
        if (!initializer) declarator += t;
      } else if (t == "}" || t == ")") {
        --depth;
        if (!initializer) declarator += t;
      } else if (depth == 0 && t == "=") {
        initializer = true;
      } else if (!initializer) {
        declarator += t;
      }
    }
    return Status::Ok();
  }

 private:
  // "g[10][0x20]", or "r<4>" (four variables r0..r3), each an object whose
  // size is added to its space's total.
  Status Declarator(const std::string& text, std::string_view space, std::uint64_t element_bytes) {
    const std::size_t end = std::min(text.find('['), text.find('<'));
    const std::string name = text.substr(0, end);
    std::uint64_t variables = 1;
    std::uint64_t elements = 1;
    for (std::size_t open = end; open < text.size();) {
      const bool parameterized = text[open] == '<';
      const std::size_t close = text.find(parameterized ? '>' : ']', open);
      if (close == std::string::npos || (!parameterized && text[open] != '[') || (parameterized && open != end)) {
        return InvalidArgument("PTX variable " + name + " (" + std::string(space) + "): cannot read its declaration '" +
                               text + "'");
      }
      const std::string_view dimension = std::string_view(text).substr(open + 1, close - open - 1);
      if (dimension.empty()) return Status::Ok();  // unsized: sized elsewhere (extern) or by its initializer
      const std::optional<std::uint64_t> value = DimensionParser(dimension).Parse();
      if (!value) {
        return InvalidArgument("PTX variable " + name + " (" + std::string(space) + "): cannot read its size '" +
                               std::string(dimension) +
                               "' (integer literals with + - * / % << >> and parentheses are read)");
      }
      if (parameterized) {
        variables = *value;
      } else {
        elements = SaturatingMultiply(elements, *value);
      }
      open = close + 1;
    }
    const std::uint64_t bytes = SaturatingMultiply(element_bytes, elements);
    if (bytes > max_bytes_) {
      return InvalidArgument("PTX variable " + name + " (" + std::string(space) + ") is " + Bytes(bytes) +
                             "; an object may be at most " + std::to_string(max_bytes_) + " bytes");
    }
    std::uint64_t& total = totals_[std::string(space)];
    total = SaturatingAdd(total, SaturatingMultiply(variables, bytes));
    if (total > max_bytes_) {
      return InvalidArgument("the PTX's " + std::string(space) + " variables total " + Bytes(total) + " (reached at " +
                             name + "); at most " + std::to_string(max_bytes_) + " bytes");
    }
    return Status::Ok();
  }

  const std::uint64_t max_bytes_;
  std::map<std::string, std::uint64_t> totals_;
};

}  // namespace

Expected<std::string> CanonicalSizedPtx(std::string_view ptx, bool keep_debug) {
  Expected<std::string> canonical = CanonicalPtx(ptx, keep_debug);
  if (!canonical.ok()) return canonical;
  QDC_RETURN_IF_ERROR(CheckPtxVariableSizes(*canonical, kMaxObjectBytes));
  return canonical;
}

Status CheckPtxVariableSizes(std::string_view canonical_ptx, std::uint64_t max_bytes) {
  SizeChecker checker(max_bytes);
  std::vector<std::string_view> statement;
  int initializer_depth = 0;  // braces open in an initializer ("= {...}")
  for (std::size_t pos = 0; pos < canonical_ptx.size();) {
    const std::size_t eol = std::min(canonical_ptx.find('\n', pos), canonical_ptx.size());
    const std::string_view line = canonical_ptx.substr(pos, eol - pos);
    pos = eol + 1;
    PtxTokens tokens(line);
    std::string_view t = tokens.Next();
    if (EndsAtLineEnd(t)) continue;  // a statement of one line, never a variable
    for (; !t.empty(); t = tokens.Next()) {
      const bool in_initializer =
          initializer_depth > 0 || (t == "{" && std::find(statement.begin(), statement.end(), "=") != statement.end());
      if (in_initializer && (t == "{" || t == "}")) {
        initializer_depth += t == "{" ? 1 : -1;
        statement.push_back(t);
      } else if (t == ";" || t == "{" || t == "}") {
        if (Status s = checker.Statement(statement); !s.ok()) return s;
        statement.clear();
        initializer_depth = 0;
      } else {
        statement.push_back(t);
      }
    }
  }
  return checker.Statement(statement);
}

}  // namespace qdcache::compiler
