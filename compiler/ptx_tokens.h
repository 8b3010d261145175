// The tokens of canonical PTX text (ptx_text.h), for the scanners over it.
#pragma once

#include <cstddef>
#include <string_view>

namespace qdcache::compiler {

// Splits canonical text into tokens: runs of anything but blanks, newlines
// and the punctuation ( ) { } , ; each of which is a token of its own.
class PtxTokens {
 public:
  explicit PtxTokens(std::string_view text) : text_(text) {}

  std::string_view Next() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n')) ++pos_;
    if (pos_ >= text_.size()) return {};
    const std::size_t start = pos_;
    if (IsPunct(text_[pos_])) return text_.substr(pos_++, 1);
    while (pos_ < text_.size() && text_[pos_] != ' ' && text_[pos_] != '\n' && !IsPunct(text_[pos_])) ++pos_;
    return text_.substr(start, pos_ - start);
  }

 private:
  static bool IsPunct(char c) {
    return c == '(' || c == ')' || c == '{' || c == '}' || c == ',' || c == ';';
  }
  std::string_view text_;
  std::size_t pos_ = 0;
};

}  // namespace qdcache::compiler
