#include "compiler/ptx_text.h"

#include <charconv>

#include "common/utf8.h"
#include "compiler/ptx_tokens.h"

namespace qdcache::compiler {
namespace {

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

// True if `line` is directive `name` (".loc") followed by a blank or nothing.
bool IsDirective(std::string_view line, std::string_view name) {
  return line.substr(0, name.size()) == name && (line.size() == name.size() || line[name.size()] == ' ');
}

std::string Hex(unsigned char c) {
  static constexpr char kDigits[] = "0123456789abcdef";
  return std::string("0x") + kDigits[c >> 4] + kDigits[c & 15];
}

// Builds canonical lines: blanks collapsed, comments gone, debug directives
// dropped unless kept.
class Canonicalizer {
 public:
  // With `origins`, records the 1-based source line of each canonical line.
  explicit Canonicalizer(bool keep_debug, std::vector<std::size_t>* origins = nullptr)
      : keep_debug_(keep_debug), origins_(origins) {}

  std::string Run(std::string_view in) {
    out_.reserve(in.size());
    enum class State { kCode, kString, kBlockComment } state = State::kCode;
    for (std::size_t i = 0; i < in.size(); ++i) {
      const char c = in[i];
      const char next = i + 1 < in.size() ? in[i + 1] : '\0';
      switch (state) {
        case State::kCode:
          if (c == '/' && next == '/') {
            while (i + 1 < in.size() && in[i + 1] != '\n') ++i;
          } else if (c == '/' && next == '*') {
            state = State::kBlockComment;
            blank_ = true;
            ++i;
          } else if (c == '\n') {
            EndLine();
          } else if (IsBlank(c)) {
            blank_ = true;
          } else {
            Put(c);
            if (c == '"') state = State::kString;
          }
          break;
        case State::kString:
          if (c == '\n') {  // a newline ends an unterminated literal, and its line
            state = State::kCode;
            EndLine();
            break;
          }
          line_ += c;
          if (c == '\\' && next != '\0' && next != '\n') {
            line_ += next;
            ++i;
          } else if (c == '"') {
            state = State::kCode;
          }
          break;
        case State::kBlockComment:
          if (c == '*' && next == '/') {
            state = State::kCode;
            ++i;
          } else if (c == '\n') {
            EndLine();  // line breaks end directives: keep them
          }
          break;
      }
    }
    EndLine();
    return std::move(out_);
  }

 private:
  void Put(char c) {
    if (blank_ && !line_.empty()) line_ += ' ';
    blank_ = false;
    line_ += c;
  }

  // Called at every source newline (and at the end).
  void EndLine() {
    blank_ = false;
    ++source_line_;
    if (line_.empty()) {
      line_start_ = source_line_ + 1;
      return;
    }
    if (keep_debug_ || !(IsDirective(line_, ".loc") || IsDirective(line_, ".file"))) {
      out_ += line_;
      out_ += '\n';
      if (origins_ != nullptr) origins_->push_back(line_start_);
    }
    line_.clear();
    line_start_ = source_line_ + 1;
  }

  const bool keep_debug_;
  std::vector<std::size_t>* const origins_;
  std::size_t source_line_ = 0;  // source lines ended so far
  std::size_t line_start_ = 1;   // the source line the pending canonical line starts on
  bool blank_ = false;
  std::string line_;
  std::string out_;
};

int ParseCount(std::string_view token) {
  int value = -1;
  auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
  return ec == std::errc() && end == token.data() + token.size() && value > 0 ? value : -1;
}

// After `.maxntid` / `.reqntid`: the product of up to three counts, or -1.
int ThreadCount(PtxTokens& tokens, std::string_view* lookahead) {
  long long product = 1;
  for (int n = 0; n < 3; ++n) {
    const int count = ParseCount(tokens.Next());
    if (count < 0) return -1;
    product *= count;
    *lookahead = tokens.Next();
    if (*lookahead != ",") break;
  }
  return product > 0 && product <= (1 << 30) ? static_cast<int>(product) : -1;
}

}  // namespace

Expected<std::string> CanonicalPtx(std::string_view ptx, bool keep_debug) {
  if (ptx.empty()) return InvalidArgument("the PTX is empty");
  if (const std::size_t nul = ptx.find('\0'); nul != std::string_view::npos) {
    return InvalidArgument("the PTX has a NUL byte at offset " + std::to_string(nul) + " (PTX is text)");
  }
  if (const std::size_t bad = FirstInvalidUtf8(ptx); bad != std::string_view::npos) {
    return InvalidArgument("the PTX is not UTF-8 text: byte " + Hex(static_cast<unsigned char>(ptx[bad])) +
                           " at offset " + std::to_string(bad));
  }
  std::string text = Canonicalizer(keep_debug).Run(ptx);
  if (!IsDirective(text, ".version")) {
    const std::string first = text.substr(0, std::min(text.find('\n'), std::size_t{60}));
    return InvalidArgument("the PTX does not begin with a .version directive (its first statement is \"" +
                           ValidUtf8(first) + "\"): is it PTX?");
  }
  if (PtxTargetSm(text).empty()) return InvalidArgument("the PTX has no .target directive");
  return text;
}

std::vector<EntryInfo> PtxEntryInfos(std::string_view canonical_ptx) {
  std::vector<EntryInfo> infos;
  for (PtxEntry& entry : PtxEntries(canonical_ptx)) {
    EntryInfo info;
    info.name = std::move(entry.name);
    info.max_threads_per_block = entry.max_threads_per_block;
    infos.push_back(std::move(info));
  }
  return infos;
}

std::vector<PtxEntry> PtxEntries(std::string_view canonical_ptx) {
  std::vector<PtxEntry> entries;
  PtxTokens tokens(canonical_ptx);
  bool external = false;  // `.extern` seen in this statement
  for (std::string_view t = tokens.Next(); !t.empty(); t = tokens.Next()) {
    if (t == ";" || t == "{" || t == "}") {
      external = false;
    } else if (t == ".extern") {
      external = true;
    } else if (t == ".entry") {
      const std::string_view name = tokens.Next();
      if (name.empty() || name == "(") break;
      PtxEntry entry{std::string(name)};
      // Its performance directives sit between the parameter list and the body.
      std::string_view u = tokens.Next();
      while (!u.empty() && u != "{" && u != ";") {
        if (u == ".maxntid" || u == ".reqntid") {
          std::string_view after;
          const int threads = ThreadCount(tokens, &after);
          if (threads > 0) entry.max_threads_per_block = threads;
          u = after.empty() ? tokens.Next() : after;
          continue;
        }
        u = tokens.Next();
      }
      if (!external && u == "{") entries.push_back(std::move(entry));
      external = false;
    }
  }
  return entries;
}

std::string PtxMessageForSource(std::string_view message, std::string_view ptx, bool keep_debug,
                                std::string_view requested_sm) {
  std::vector<std::size_t> origins;
  const std::string text = Canonicalizer(keep_debug, &origins).Run(ptx);
  // ptxas: "ptxas application ptx input, line 6; error   : ..."
  constexpr std::string_view kLine = ", line ";
  std::string out;
  std::size_t pos = 0;
  while (pos < message.size()) {
    const std::size_t at = message.find(kLine, pos);
    if (at == std::string_view::npos) break;
    const std::size_t digits = at + kLine.size();
    std::size_t end = digits;
    while (end < message.size() && message[end] >= '0' && message[end] <= '9') ++end;
    std::size_t line = 0;
    auto [stop, ec] = std::from_chars(message.data() + digits, message.data() + end, line);
    out.append(message.substr(pos, digits - pos));
    if (ec == std::errc() && stop == message.data() + end && line >= 1 && line <= origins.size()) {
      out += std::to_string(origins[line - 1]);
    } else {
      out.append(message.substr(digits, end - digits));
    }
    pos = end;
  }
  out.append(message.substr(pos));
  if (message.find(".target") != std::string_view::npos) {
    const std::string sm = PtxTargetSm(text);
    if (!sm.empty()) out += " (the PTX's .target is " + sm + "; the target asked for is " + std::string(requested_sm) + ")";
  }
  return out;
}

std::string PtxTargetSm(std::string_view canonical_ptx) {
  std::size_t pos = 0;
  while (pos < canonical_ptx.size()) {
    const std::size_t eol = canonical_ptx.find('\n', pos);
    const std::string_view line =
        canonical_ptx.substr(pos, eol == std::string_view::npos ? std::string_view::npos : eol - pos);
    if (IsDirective(line, ".target")) {
      std::string_view rest = line.substr(std::string_view(".target").size());
      rest.remove_prefix(std::min(rest.find_first_not_of(' '), rest.size()));
      return std::string(rest.substr(0, rest.find_first_of(", ")));
    }
    if (eol == std::string_view::npos) break;
    pos = eol + 1;
  }
  return {};
}

}  // namespace qdcache::compiler
