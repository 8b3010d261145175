#include "compiler/stage_options.h"

#include "compiler/compiler.h"
#include "compiler/nvjitlink_link.h"
#include "llvm/ADT/StringExtras.h"

namespace qdcache::compiler {

// Keep each *StageOptions and its *OptionsKey side by side: they list the
// same fields.

CompileOptions PtxStageOptions(const CompileOptions& o) {
  CompileOptions stage;
  stage.opt_level = o.opt_level;
  stage.fast_math = o.fast_math;
  stage.fmad = o.fmad;
  stage.debug = o.debug;
  stage.lineinfo = o.lineinfo;
  stage.link_libdevice = o.link_libdevice;
  return stage;
}

std::string PtxOptionsKey(const CompileOptions& o) {
  const CompileOptions s = PtxStageOptions(o);
  return "opt=" + std::to_string(s.opt_level) +
         " fast_math=" + std::to_string(s.fast_math ? 1 : 0) +
         " fmad=" + std::to_string(s.fmad ? 1 : 0) + " debug=" + std::to_string(s.debug ? 1 : 0) +
         " lineinfo=" + std::to_string(s.lineinfo ? 1 : 0) +
         " link_libdevice=" + std::to_string(s.link_libdevice ? 1 : 0);
}

CompileOptions LinkStageOptions(const CompileOptions& o) {
  CompileOptions stage;
  stage.opt_level = o.opt_level == 0 ? 0 : 3;
  stage.max_registers = o.max_registers;
  stage.debug = o.debug;
  stage.lineinfo = o.lineinfo;
  stage.fast_math = o.fast_math;
  return stage;
}

std::string LinkOptionsKey(const CompileOptions& o) {
  // Exactly the arguments LinkPtxToCubin gives nvJitLink, minus -arch (the
  // target) and -verbose (always on).
  return llvm::join(NvJitLinkOptionArgs(LinkStageOptions(o)), " ");
}

}  // namespace qdcache::compiler
