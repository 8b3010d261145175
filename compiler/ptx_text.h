// PTX as an input kind: the checks the daemon makes before any worker runs,
// the canonical text that is both keyed and compiled, and the kernels it
// declares. Pure text processing, linear in the input; needs no toolkit.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/expected.h"
#include "compiler/compiler.h"

namespace qdcache::compiler {

// `ptx` without what cannot change the cubin: comments, blank lines, runs of
// blanks (outside string literals) and leading/trailing blanks of lines; and,
// unless `keep_debug` (lineinfo or debug was asked), the `.file` and `.loc`
// debug directives, which otherwise only add line tables to the cubin. The
// daemon keys on this text and hands this text to nvJitLink, so equal keys
// mean equal cubins. Statements keep their order and their line breaks.
// INVALID_ARGUMENT, saying what is wrong, unless `ptx` is non-empty UTF-8
// text without NUL bytes whose first statement is a `.version` directive and
// which has a `.target` directive: everything else (syntax, types, the SM)
// is ptxas's to judge.
[[nodiscard]] Expected<std::string> CanonicalPtx(std::string_view ptx, bool keep_debug);

struct PtxEntry {
  std::string name;
  int max_threads_per_block = -1;  // product of `.maxntid x[, y[, z]]`, or -1
};

// Every kernel (`.entry`) defined in `ptx`, which must be CanonicalPtx text,
// in order. Declarations (`.extern .entry`) are not defined here.
[[nodiscard]] std::vector<PtxEntry> PtxEntries(std::string_view canonical_ptx);
// The same kernels as a compiler's entries (registers and memory unknown
// until ptxas has run).
[[nodiscard]] std::vector<EntryInfo> PtxEntryInfos(std::string_view canonical_ptx);

// A ptxas message about CanonicalPtx(ptx, keep_debug) as one about `ptx`,
// the text the client sent: its "line N" positions are the client's lines,
// and a complaint about the `.target` directive says which SM that names
// and which one was asked for (`requested_sm`).
[[nodiscard]] std::string PtxMessageForSource(std::string_view message, std::string_view ptx, bool keep_debug,
                                              std::string_view requested_sm);

// The SM of the `.target` directive ("sm_90a"), or empty.
[[nodiscard]] std::string PtxTargetSm(std::string_view canonical_ptx);

}  // namespace qdcache::compiler
