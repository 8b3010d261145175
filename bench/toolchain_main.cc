// qdcache-bench-toolchain: scenario 7's baseline, a process that does what
// an in-process kernel compiler does before its first compile: load LLVM,
// initialise its targets and probe nvJitLink. It links the compiler library
// only, as such a process would. Prints {"llvm":..,"cuda":..,"peak_rss_kib":K}.
#include <cstdio>

#include "bench/peak_rss.h"
#include "backends/in_process_compiler.h"
#include "compiler/compiler.h"

int main() {
  std::unique_ptr<qdcache::compiler::Compiler> compiler = qdcache::compiler::MakeInProcessCompiler();
  std::printf("{\"llvm\":\"%s\",\"cuda\":\"%s\",\"peak_rss_kib\":%ld}\n",
              compiler->toolchain().llvm_version.c_str(), compiler->toolchain().cuda_version.c_str(),
              qdcache::bench::PeakRssKib());
  return 0;
}
