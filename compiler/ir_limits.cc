#include "compiler/ir_limits.h"

#include <cstddef>

namespace qdcache::compiler {

std::optional<NestingExcess> FindExcessNesting(std::string_view text, int limit) {
  int depth = 0;
  int line = 1;
  size_t line_start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    switch (text[i]) {
      case '\n':
        ++line;
        line_start = i + 1;
        break;
      case '"':  // LLVM strings have no escaped quotes ("\22" instead)
        for (++i; i < text.size() && text[i] != '"'; ++i) {
          if (text[i] == '\n') {
            ++line;
            line_start = i + 1;
          }
        }
        break;
      case ';':
        while (i + 1 < text.size() && text[i + 1] != '\n') ++i;
        break;
      case '(':
      case '[':
      case '{':
      case '<':
        if (++depth > limit) {
          return NestingExcess{line, static_cast<int>(i - line_start) + 1};
        }
        break;
      case ')':
      case ']':
      case '}':
      case '>':
        if (depth > 0) --depth;
        break;
      default:
        break;
    }
  }
  return std::nullopt;
}

}  // namespace qdcache::compiler
