#include "common/include_scan.h"

#include <algorithm>
#include <cctype>

namespace qdcache {
namespace {

bool IsIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_'; }
bool IsIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

std::string Where(std::string_view file, int line) { return std::string(file) + ":" + std::to_string(line); }

}  // namespace

Status CheckHeaderName(std::string_view name, std::string_view what) {
  if (name.empty()) return InvalidArgument(std::string(what) + ": an empty header name");
  const std::string quoted = "\"" + std::string(name) + "\"";
  if (name.front() == '/') {
    return InvalidArgument(std::string(what) + ": " + quoted +
                           " is an absolute path; the daemon reads no file a client names (send the header by a "
                           "relative name)");
  }
  if (name.find('\\') != std::string_view::npos || name.find('\0') != std::string_view::npos) {
    return InvalidArgument(std::string(what) + ": " + quoted + " holds a backslash or a NUL byte");
  }
  std::size_t start = 0;
  while (start <= name.size()) {
    const std::size_t end = std::min(name.find('/', start), name.size());
    const std::string_view part = name.substr(start, end - start);
    if (part.empty() || part == "." || part == "..") {
      return InvalidArgument(std::string(what) + ": " + quoted +
                             " has an empty, \".\" or \"..\" component; headers are named by plain relative paths");
    }
    start = end + 1;
  }
  return Status::Ok();
}

namespace {

// Text after translation phase 2 (backslash-newline and "??/"-newline
// removed), and where each line of the text as sent starts in it.
struct Spliced {
  std::string text;
  std::vector<std::size_t> line_starts;  // line_starts[n - 1]: line n's first offset in `text`

  // The line (1-based, as sent) of offset `at` of `text`.
  [[nodiscard]] int LineOf(std::size_t at) const {
    return static_cast<int>(std::upper_bound(line_starts.begin(), line_starts.end(), at) - line_starts.begin());
  }
};

Spliced Splice(std::string_view in) {
  Spliced out;
  out.text.reserve(in.size());
  out.line_starts.push_back(0);
  for (std::size_t i = 0; i < in.size(); ++i) {
    std::size_t skip = 0;
    if (in[i] == '\\') skip = 1;
    if (in.substr(i, 3) == "?\?/") skip = 3;
    if (skip != 0) {
      std::size_t j = i + skip;
      if (j < in.size() && in[j] == '\r') ++j;
      if (j < in.size() && in[j] == '\n') {
        // The next line as sent goes on at the same offset: offsets past it
        // belong to it (upper_bound takes the last of equal starts).
        out.line_starts.push_back(out.text.size());
        i = j;
        continue;
      }
    }
    out.text.push_back(in[i]);
    if (in[i] == '\n') out.line_starts.push_back(out.text.size());
  }
  return out;
}

class IncludeScanner {
 public:
  IncludeScanner(std::string_view text, std::string_view file) : s_(Splice(text)), file_(file) {}

  Expected<std::vector<IncludeDirective>> Run() {
    const std::string& t = s_.text;
    bool line_start = true;  // only blanks and comments since the last newline
    while (i_ < t.size()) {
      const char c = t[i_];
      if (c == '\n') {
        line_start = true;
        ++i_;
      } else if (c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r') {
        ++i_;
      } else if (At("/*")) {
        SkipBlockComment();  // a comment is one space: it does not end the line
      } else if (At("//")) {
        while (i_ < t.size() && t[i_] != '\n') ++i_;
      } else if (line_start && (c == '#' || At("%:") || At("?\?="))) {
        i_ += c == '#' ? 1 : At("%:") ? 2 : 3;
        line_start = false;
        QDC_RETURN_IF_ERROR(Directive());
      } else if (IsIdentStart(c)) {
        line_start = false;
        QDC_RETURN_IF_ERROR(Identifier());
      } else if (std::isdigit(static_cast<unsigned char>(c)) != 0 ||
                 (c == '.' && i_ + 1 < t.size() && std::isdigit(static_cast<unsigned char>(t[i_ + 1])) != 0)) {
        line_start = false;
        PpNumber();
      } else if (c == '"' || c == '\'') {
        line_start = false;
        QuotedLiteral(c);
      } else {
        line_start = false;
        ++i_;
      }
    }
    return std::move(found_);
  }

 private:
  bool At(std::string_view what) const { return std::string_view(s_.text).substr(i_, what.size()) == what; }
  int Line() const { return s_.LineOf(i_); }

  void SkipBlockComment() {
    const std::size_t end = s_.text.find("*/", i_ + 2);
    i_ = end == std::string::npos ? s_.text.size() : end + 2;
  }

  // Blanks and block comments within the line.
  void SkipInlineSpace() {
    while (i_ < s_.text.size()) {
      const char c = s_.text[i_];
      if (c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r') {
        ++i_;
      } else if (At("/*")) {
        SkipBlockComment();
      } else {
        return;
      }
    }
  }

  std::string_view ReadIdentifier() {
    const std::size_t start = i_;
    while (i_ < s_.text.size() && IsIdentChar(s_.text[i_])) ++i_;
    return std::string_view(s_.text).substr(start, i_ - start);
  }

  // "name" or <name> at i_; INVALID_ARGUMENT naming `what` for anything else.
  Status HeaderOperand(std::string_view what, int line) {
    const std::string& t = s_.text;
    const char open = i_ < t.size() ? t[i_] : '\0';
    if (open != '"' && open != '<') {
      return InvalidArgument(Where(file_, line) + ": " + std::string(what) +
                             " with a computed operand (a macro); the closed world takes only \"name\" or <name>");
    }
    const char close = open == '"' ? '"' : '>';
    const std::size_t end = t.find_first_of(std::string{close, '\n'}, i_ + 1);
    if (end == std::string::npos || t[end] != close) {
      return InvalidArgument(Where(file_, line) + ": " + std::string(what) + " without a closing " + close);
    }
    IncludeDirective d;
    d.name = t.substr(i_ + 1, end - i_ - 1);
    d.angled = open == '<';
    d.line = line;
    i_ = end + 1;
    QDC_RETURN_IF_ERROR(CheckHeaderName(d.name, Where(file_, line) + ": " + std::string(what)));
    found_.push_back(std::move(d));
    return Status::Ok();
  }

  Status Directive() {
    const int line = Line();
    SkipInlineSpace();
    const std::string_view name = ReadIdentifier();
    if (name != "include" && name != "include_next" && name != "import") return Status::Ok();
    SkipInlineSpace();
    return HeaderOperand("#" + std::string(name), line);
  }

  Status Identifier() {
    const std::string& t = s_.text;
    const std::size_t start = i_;
    const std::string_view id = ReadIdentifier();
    if (i_ < t.size() && t[i_] == '"' && (id == "R" || id == "u8R" || id == "uR" || id == "UR" || id == "LR")) {
      RawString();
      return Status::Ok();
    }
    if (i_ < t.size() && (t[i_] == '"' || t[i_] == '\'') && (id == "u8" || id == "u" || id == "U" || id == "L")) {
      QuotedLiteral(t[i_]);
      return Status::Ok();
    }
    if (id != "__has_include" && id != "__has_include_next") return Status::Ok();
    const int line = s_.LineOf(start);
    while (i_ < t.size() && std::isspace(static_cast<unsigned char>(t[i_])) != 0) ++i_;
    if (i_ >= t.size() || t[i_] != '(') {
      return InvalidArgument(Where(file_, line) + ": " + std::string(id) + " without a parenthesised operand");
    }
    ++i_;
    while (i_ < t.size() && std::isspace(static_cast<unsigned char>(t[i_])) != 0) ++i_;
    return HeaderOperand(id, line);
  }

  // R"delim( ... )delim": may span lines; nothing inside is a directive.
  void RawString() {
    const std::string& t = s_.text;
    // The delimiter: at most 16 characters before '(' (a longer one, or no
    // '(' in reach, is no raw string; looking no further keeps this linear).
    const std::size_t open = t.find_first_of("( )\\\t\v\f\n\"", i_ + 1);
    if (open == std::string::npos || t[open] != '(' || open - i_ - 1 > 16) {
      ++i_;
      return;
    }
    const std::string terminator = ")" + t.substr(i_ + 1, open - i_ - 1) + "\"";
    const std::size_t end = t.find(terminator, open + 1);
    i_ = end == std::string::npos ? t.size() : end + terminator.size();
  }

  // "..." or '...': ends at its closing quote or, unterminated, at the line's end.
  void QuotedLiteral(char quote) {
    const std::string& t = s_.text;
    ++i_;
    while (i_ < t.size() && t[i_] != '\n') {
      if (t[i_] == '\\' && i_ + 1 < t.size() && t[i_ + 1] != '\n') {
        i_ += 2;
      } else if (t[i_++] == quote) {
        return;
      }
    }
  }

  // A pp-number: digits, letters, '.', digit separators, exponent signs.
  void PpNumber() {
    const std::string& t = s_.text;
    while (i_ < t.size()) {
      const char c = t[i_];
      if ((c == '+' || c == '-') && i_ > 0 &&
          (t[i_ - 1] == 'e' || t[i_ - 1] == 'E' || t[i_ - 1] == 'p' || t[i_ - 1] == 'P')) {
        ++i_;
      } else if (IsIdentChar(c) || c == '.' ||
                 (c == '\'' && i_ + 1 < t.size() && IsIdentChar(t[i_ + 1]))) {
        ++i_;
      } else {
        return;
      }
    }
  }

  Spliced s_;
  std::string_view file_;
  std::size_t i_ = 0;
  std::vector<IncludeDirective> found_;
};

}  // namespace

bool IsIdentifier(std::string_view s) {
  return !s.empty() && IsIdentStart(s.front()) && std::all_of(s.begin(), s.end(), IsIdentChar);
}

Expected<std::vector<IncludeDirective>> ScanIncludes(std::string_view text, std::string_view file) {
  return IncludeScanner(text, file).Run();
}

}  // namespace qdcache
