#include "compiler/options.h"

namespace qdcache::compiler {

std::string ToString(const CompileOptions& o) {
  return "opt=" + std::to_string(o.opt_level) +
         " fast_math=" + std::to_string(o.fast_math ? 1 : 0) +
         " fmad=" + std::to_string(o.fmad ? 1 : 0) + " debug=" + std::to_string(o.debug ? 1 : 0) +
         " lineinfo=" + std::to_string(o.lineinfo ? 1 : 0) +
         " max_registers=" + std::to_string(o.max_registers) +
         " link_libdevice=" + std::to_string(o.link_libdevice ? 1 : 0);
}

}  // namespace qdcache::compiler
