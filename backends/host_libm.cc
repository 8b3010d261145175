#include "backends/host_libm.h"

#include <dlfcn.h>

#include <array>
#include <string_view>

#include "backends/elf_symbols.h"
#include "llvm/Support/MemoryBuffer.h"

namespace qdcache::compiler {
namespace {

// C11 7.12.4-7.12.13, double forms; each also has an f and an l form.
constexpr std::array<std::string_view, 57> kC11MathFunctions = {
    "acos",   "asin",     "atan",      "atan2",  "cos",     "sin",       "tan",      "acosh",
    "asinh",  "atanh",    "cosh",      "sinh",   "tanh",    "exp",       "exp2",     "expm1",
    "frexp",  "ilogb",    "ldexp",     "log",    "log10",   "log1p",     "log2",     "logb",
    "modf",   "scalbn",   "scalbln",   "cbrt",   "fabs",    "hypot",     "pow",      "sqrt",
    "erf",    "erfc",     "lgamma",    "tgamma", "ceil",    "floor",     "nearbyint", "rint",
    "lrint",  "llrint",   "round",     "lround", "llround", "trunc",     "fmod",     "remainder",
    "remquo", "copysign", "nan",       "nextafter", "nexttoward", "fdim", "fmax",    "fmin",
    "fma",
};
// GNU functions LLVM emits calls to on Linux (a sin and cos of one value,
// llvm.exp10), in the same three forms.
constexpr std::array<std::string_view, 2> kLlvmGnuMathFunctions = {"sincos", "exp10"};

std::set<std::string> Candidates() {
  std::set<std::string> names;
  auto add = [&names](std::string_view base) {
    for (const char* suffix : {"", "f", "l"}) names.insert(std::string(base) + suffix);
  };
  for (std::string_view base : kC11MathFunctions) add(base);
  for (std::string_view base : kLlvmGnuMathFunctions) add(base);
  return names;
}

// The file this process loaded libm from: dladdr on one of its functions.
std::string LoadedLibmPath(std::string& error) {
  void* handle = ::dlopen("libm.so.6", RTLD_LAZY | RTLD_NOLOAD);
  if (handle == nullptr) handle = ::dlopen("libm.so.6", RTLD_LAZY);
  if (handle == nullptr) {
    error = "libm is not loadable in this process";
    return {};
  }
  void* symbol = ::dlsym(handle, "cosf");
  Dl_info info{};
  const bool found = symbol != nullptr && ::dladdr(symbol, &info) != 0 && info.dli_fname != nullptr;
  std::string path = found ? info.dli_fname : "";
  ::dlclose(handle);
  if (path.empty()) error = "cannot locate libm with dladdr";
  return path;
}

HostLibm Derive() {
  HostLibm libm;
  libm.path = LoadedLibmPath(libm.error);
  if (libm.path.empty()) return libm;
  auto buffer = llvm::MemoryBuffer::getFile(libm.path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!buffer) {
    libm.error = "cannot read " + libm.path + ": " + buffer.getError().message();
    return libm;
  }
  auto symbols = ReadElfSymbols((*buffer)->getBuffer(), libm.path, SymbolTable::kDynamic);
  if (!symbols) {
    libm.error = llvm::toString(symbols.takeError());
    return libm;
  }
  const std::set<std::string> candidates = Candidates();
  for (const ElfSymbol& symbol : *symbols) {
    if (symbol.function && !symbol.undefined && candidates.count(symbol.name)) libm.functions.insert(symbol.name);
  }
  if (libm.functions.empty()) libm.error = libm.path + " exports none of the C math functions";
  return libm;
}

}  // namespace

const HostLibm& GetHostLibm() {
  static const HostLibm libm = Derive();
  return libm;
}

}  // namespace qdcache::compiler
