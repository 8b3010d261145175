// Structural limits on IR input, checked before LLVM's recursive code sees it.
//
// LLVM's text parser, IR printer, DataLayout and SelectionDAG recurse once
// per level of type or constant nesting, with no depth limit of their own, so
// a deep enough input overflows the stack of whatever thread reads it
// (measured with llvm-as-19 on an 8 MiB stack: ~5,500 nested constant
// expressions, ~26,000 nested array types; a bitcode file can nest deeper
// than text and then crashes the printer and codegen instead). The printer
// also spells out every use of a constant in full, so a small bitcode file
// whose constants share subexpressions (x*x, then that squared, ...) prints to
// 2^depth nodes: a hang, not a crash. These checks turn both into
// INVALID_ARGUMENT before any of that code runs (module_limits.h checks
// them; this header needs no LLVM, so tests can use it).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace qdcache::compiler {

// Deepest nesting accepted: brackets in text IR, and types and constants in a
// parsed module. Frontends stay far below it (nested structs and constant
// expressions a few tens of levels deep at most); at 256 levels the deepest
// recursion measured (constant expressions in the text parser, ~1.5 KiB of
// stack per level) needs under 0.5 MiB, so even a 1 MiB thread stack, or a
// sanitizer build with its larger frames on the default 8 MiB, is safe.
inline constexpr int kMaxIrNestingDepth = 256;

// Most nodes one type, or all constant operands of a module together, may
// expand to when spelled out in full, as the IR printer does. Text IR spells
// them out itself, at 4 bytes or more per node, so any text under the
// daemon's default 64 MiB IR limit passes; only bitcode, where types and
// constants are shared by reference, can reach it.
inline constexpr std::uint64_t kMaxSpelledOutNodes = std::uint64_t{16} << 20;

// Largest object a kernel may define, on every target and in every input
// kind: a global variable (any address space or PTX state space), and all of
// one space's together. 2^47 bytes is the x86-64 user address space, which
// CUDA's unified addressing shares; LLVM's DataLayout and ptxas count sizes
// in bits and wrap past 2^61 bytes, so sizes are checked before either sees
// them (backends/object_sizes.h, compiler/ptx_variables.h).
inline constexpr std::uint64_t kMaxObjectBytes = std::uint64_t{1} << 47;

// Object sizes are added and multiplied saturating at kSaturatedBytes
// (2^64 - 1): a size that far past kMaxObjectBytes is refused all the same.
inline constexpr std::uint64_t kSaturatedBytes = UINT64_MAX;
[[nodiscard]] constexpr std::uint64_t SaturatingAdd(std::uint64_t a, std::uint64_t b) {
  return a > kSaturatedBytes - b ? kSaturatedBytes : a + b;
}
[[nodiscard]] constexpr std::uint64_t SaturatingMultiply(std::uint64_t a, std::uint64_t b) {
  if (a == 0 || b == 0) return 0;
  return a > kSaturatedBytes / b ? kSaturatedBytes : a * b;
}

// Where brackets first nest deeper than `limit` in text IR.
struct NestingExcess {
  int line = 0;    // 1-based
  int column = 0;  // 1-based, in bytes
};

// Scans text IR once, counting '(', '[', '{', '<' against their closers;
// quoted strings and ';' comments are skipped, unbalanced closers ignored
// (the parser reports those). Returns the position of the first opening
// bracket at depth limit + 1, or nothing. Needs no LLVM.
[[nodiscard]] std::optional<NestingExcess> FindExcessNesting(std::string_view text, int limit);

}  // namespace qdcache::compiler
