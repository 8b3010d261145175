// libFuzzer target: the daemon's own PTX front door (compiler/ptx_text.h),
// which reads every PTX input before any worker does. Invariants: no crash
// or sanitizer report; the canonical text is a fixed point (canonical of
// canonical is itself) in both debug modes, has no blank line, begins with
// .version and has a .target; kernels and message rewriting read it without
// failing.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "compiler/ptx_text.h"

namespace {

[[noreturn]] void Fail(const char* what) {
  std::fprintf(stderr, "ptx_text invariant broken: %s\n", what);
  std::abort();
}

void Check(std::string_view input, bool keep_debug) {
  using namespace qdcache::compiler;
  qdcache::Expected<std::string> text = CanonicalPtx(input, keep_debug);
  if (!text.ok()) {
    if (text.status().message().empty()) Fail("a refusal without a message");
    return;
  }
  qdcache::Expected<std::string> again = CanonicalPtx(*text, keep_debug);
  if (!again.ok() || *again != *text) Fail("the canonical text is not a fixed point");
  if (text->find("\n\n") != std::string::npos) Fail("a blank line in the canonical text");
  if (text->rfind(".version", 0) != 0 || PtxTargetSm(*text).empty()) Fail("no .version first or no .target");
  for (const PtxEntry& entry : PtxEntries(*text)) {
    if (entry.name.empty()) Fail("an entry without a name");
  }
  (void)PtxMessageForSource("ptxas application ptx input, line 3; error : x, line 999999999999999999999; .target",
                            input, keep_debug, "sm_90");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  Check(input, false);
  Check(input, true);
  return 0;
}
