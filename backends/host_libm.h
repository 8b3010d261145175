// The host's libm, as CPU kernel libraries may use it: where this process
// loaded it from, and which of its functions a kernel may import.
#pragma once

#include <set>
#include <string>

namespace qdcache::compiler {

struct HostLibm {
  std::string path;                 // the file this process loaded libm.so.6 from
  std::set<std::string> functions;  // importable functions (see below)
  std::string error;                // non-empty: libm could not be located or read
};

// Derived once per process, from the library itself: the C99/C11 <math.h>
// functions (C11 7.12, in their double, float and long double forms) and the
// GNU sincos and exp10 forms LLVM lowers intrinsics to, each kept only when
// the loaded libm exports it as a defined function. <fenv.h>, the global
// state of <math.h> (signgam), glibc's internal and _FloatN forms are not
// importable. glibc's version is part of the toolchain fingerprint.
[[nodiscard]] const HostLibm& GetHostLibm();

}  // namespace qdcache::compiler
