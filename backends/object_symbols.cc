#include "backends/object_symbols.h"

#include <algorithm>
#include <set>

#include "backends/compile_error.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/MemoryBuffer.h"

namespace qdcache::compiler {
namespace {

constexpr llvm::StringRef kLibcAllowed[] = {"memcpy", "memmove", "memset"};

// C99 <math.h> functions, float and double versions (LLVM lowers math
// intrinsics it cannot inline to these, and frontends call them directly).
constexpr llvm::StringRef kLibmAllowed[] = {
    "acos",    "acosf",     "acosh",      "acoshf",  "asin",     "asinf",     "asinh",
    "asinhf",  "atan",      "atanf",      "atan2",   "atan2f",   "atanh",     "atanhf",
    "cbrt",    "cbrtf",     "ceil",       "ceilf",   "copysign", "copysignf", "cos",
    "cosf",    "cosh",      "coshf",      "erf",     "erff",     "erfc",      "erfcf",
    "exp",     "expf",      "exp2",       "exp2f",   "expm1",    "expm1f",    "fabs",
    "fabsf",   "fdim",      "fdimf",      "floor",   "floorf",   "fma",       "fmaf",
    "fmax",    "fmaxf",     "fmin",       "fminf",   "fmod",     "fmodf",     "hypot",
    "hypotf",  "ldexp",     "ldexpf",     "lgamma",  "lgammaf",  "log",       "logf",
    "log10",   "log10f",    "log1p",      "log1pf",  "log2",     "log2f",     "logb",
    "logbf",   "nearbyint", "nearbyintf", "pow",     "powf",     "remainder", "remainderf",
    "rint",    "rintf",     "round",      "roundf",  "sin",      "sinf",      "sincos",
    "sincosf", "sinh",      "sinhf",      "sqrt",    "sqrtf",    "tan",       "tanf",
    "tanh",    "tanhf",     "tgamma",     "tgammaf", "trunc",    "truncf",
};

}  // namespace

llvm::Expected<ObjectImports> CheckObjectSymbols(std::string_view object,
                                                 const std::vector<std::string>& entries) {
  auto parsed = llvm::object::ObjectFile::createObjectFile(
      llvm::MemoryBufferRef(llvm::StringRef(object.data(), object.size()), "codegen.o"));
  if (!parsed)
    return ToolchainFailure("cannot read the object X86 codegen produced: " +
                            llvm::toString(parsed.takeError()));

  ObjectImports imports;
  std::set<std::string> refused;
  std::set<std::string> defined;
  for (const llvm::object::SymbolRef& symbol : (*parsed)->symbols()) {
    auto flags = symbol.getFlags();
    auto name = symbol.getName();
    if (!flags || !name) {
      llvm::consumeError(flags.takeError());
      llvm::consumeError(name.takeError());
      continue;
    }
    if (name->empty()) continue;
    if (*flags & llvm::object::SymbolRef::SF_Undefined) {
      if (llvm::is_contained(kLibmAllowed, *name)) {
        imports.needs_libm = true;
      } else if (!llvm::is_contained(kLibcAllowed, *name)) {
        refused.insert(name->str());
      }
    } else if (*flags & llvm::object::SymbolRef::SF_Global) {
      defined.insert(name->str());
    }
  }
  if (!refused.empty()) {
    return BadInput("the module needs undefined symbols that a kernel library may not import: " +
                    llvm::join(refused, ", ") +
                    " (allowed: memcpy, memmove, memset and C math functions)");
  }
  for (const std::string& entry : entries) {
    if (!defined.count(entry)) {
      return BadInput("entry point '" + entry +
                      "' was not emitted as a global symbol (removed by optimization?)");
    }
  }
  return imports;
}

}  // namespace qdcache::compiler
