// The #include directives of a C/C++ text, found the way a preprocessor
// finds them (after line splicing, outside comments and literals), and the
// header names a closed world of named headers takes. Pure text work: the
// daemon checks CUDA C++ programs with it, the CLI finds the headers a
// source includes with it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/expected.h"

namespace qdcache {

// One #include, #include_next, #import or __has_include of a text.
struct IncludeDirective {
  std::string name;  // between the quotes or the angle brackets
  bool angled = false;
  int line = 0;      // 1-based, in the text as given
};

// Every #include, #include_next, #import and __has_include of `text` (a
// source or header named `file` in messages), outside comments and string
// literals, after line splicing (also of "??/" newlines), with "%:" and "??="
// read as '#'. Conservative where it cannot know: a directive inside a
// skipped #if group is found too. INVALID_ARGUMENT ("file:line: ...") for a
// computed one (a macro, not "name" or <name>) and for a name
// CheckHeaderName refuses.
[[nodiscard]] Expected<std::vector<IncludeDirective>> ScanIncludes(std::string_view text, std::string_view file);

// A relative path without empty, "." or ".." components, backslashes or NUL
// bytes: the only header names a closed world takes. INVALID_ARGUMENT
// starting with `what` otherwise.
[[nodiscard]] Status CheckHeaderName(std::string_view name, std::string_view what);

// A C identifier: [A-Za-z_][A-Za-z0-9_]* (a macro's name).
[[nodiscard]] bool IsIdentifier(std::string_view s);

}  // namespace qdcache
