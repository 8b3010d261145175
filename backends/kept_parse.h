// A module parsed once for two uses in a compile worker: the canonical
// digest of a miss's IR (canonical_ir.h) and then its compile. A digest
// asked to keep its parse leaves the module here as the reader made it (not
// conformed, not canonicalized: the digest works on a copy), and the next
// compile of the same IR bytes takes it instead of parsing again, so its
// artifact is what a fresh parse would have given. One slot per process (a
// worker runs one call at a time): a compile of other bytes, the next digest
// that keeps its parse, or Drop empties it. Thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace llvm {
class LLVMContext;
class Module;
}  // namespace llvm

namespace qdcache::compiler {

struct ParsedIr {
  ParsedIr();
  ~ParsedIr();  // the module, then its context

  std::string ir;  // the bytes parsed
  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::Module> module;  // in `context`, as ReadModule returned it
  std::string diagnostics;               // what LLVM reported while parsing (DiagnosticCollector::log)
  std::string reader_log;                // ReadModule's own warnings
  double parse_seconds = 0;
};

// Puts `parsed` in the slot, replacing what was there.
void KeepParse(std::unique_ptr<ParsedIr> parsed);

// The kept parse if it is of exactly `ir`, else null; the slot is empty
// afterwards either way.
[[nodiscard]] std::unique_ptr<ParsedIr> TakeKeptParse(std::string_view ir);

void DropKeptParse();

// Whether a parse is kept now.
[[nodiscard]] bool HoldsKeptParse();

// How many parses TakeKeptParse has handed out in this process.
[[nodiscard]] std::uint64_t KeptParsesTaken();

}  // namespace qdcache::compiler
