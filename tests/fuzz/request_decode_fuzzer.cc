// libFuzzer target: arbitrary bytes as the daemon's wire requests. Each input
// is parsed as a v1::CompileRequest and as a v1::LookupRequest; what parses
// goes through what the service and engine run before any LLVM: the
// envelope checks, DecodeKernel (target, options, entry points, fast key,
// key extras), the artifact and PTX stage keys over a fixed IR digest, and
// for lookups the fast-key limits and DecodeTarget.
//
// Besides crashes and sanitizer reports it checks invariants a client relies
// on: every error message crosses the wire (valid UTF-8 once ValidUtf8 ran,
// as Engine::Fail does), a decoded target is canonical (normalizing it again
// and re-reading its text give the same text), and keys are deterministic.
#include <google/protobuf/stubs/logging.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "common/utf8.h"
#include "common/target.h"
#include "compiler/ptx_text.h"
#include "engine/artifact_key.h"
#include "engine/descriptor.h"
#include "engine/ir_digest_memo.h"
#include "daemon/request_checks.h"
#include "daemon/service.h"
#include "qdcache/v1/qdcache.pb.h"

namespace {

using namespace qdcache;

[[noreturn]] void Fail(const std::string& what) {
  std::fprintf(stderr, "request_decode invariant violated: %s\n", what.c_str());
  std::abort();
}

// The service's own envelope checks (daemon/request_checks.h): the protocol
// version, then the batch size against the default --max-batch.
bool EnvelopeAccepted(const v1::RequestHeader& header, int batch, const char* what) {
  return daemon::CheckHeader(header).ok() && daemon::CheckBatch(batch, daemon::ServiceLimits{}.max_batch, what).ok();
}

// What Engine::Fail puts on the wire must parse back on the client.
void CheckErrorTravels(const Status& status) {
  v1::CompileResult result;
  result.set_status(v1::CACHE_STATUS_ERROR);
  result.mutable_error()->set_code(static_cast<int>(status.code()));
  result.mutable_error()->set_message(ValidUtf8(status.message()));
  std::string wire;
  if (!result.SerializeToString(&wire)) Fail("error result does not serialize");
  v1::CompileResult back;
  if (!back.ParseFromString(wire) || back.error().message() != result.error().message()) {
    Fail("error message does not survive the wire: " + result.error().message());
  }
}

void CheckCanonicalTarget(const compiler::Target& target) {
  const std::string text = target.ToString();
  Expected<compiler::Target> again = compiler::NormalizeTarget(target);
  if (!again.ok() || again->ToString() != text) Fail("normalizing " + text + " changes it");
  Expected<compiler::Target> reread = compiler::ParseTarget(text);
  if (!reread.ok())
    Fail("canonical target " + text + " does not parse: " + reread.status().message());
  Expected<compiler::Target> renormalized = compiler::NormalizeTarget(*reread);
  if (!renormalized.ok() || !(*renormalized == target)) {
    Fail("canonical target " + text + " reads back as another target");
  }
}

void DecodeCompile(const v1::CompileRequest& request) {
  if (!EnvelopeAccepted(request.header(), request.kernels_size(), "compile")) return;
  const engine::DescriptorLimits limits;
  for (const v1::KernelDescriptor& descriptor : request.kernels()) {
    Expected<engine::DecodedKernel> kernel = engine::DecodeKernel(descriptor, limits);
    if (!kernel.ok()) {
      CheckErrorTravels(kernel.status());
      continue;
    }
    CheckCanonicalTarget(kernel->input.target);
    const bool keep_debug = engine::KeepsDebugInfo(*kernel);
    (void)engine::IrDigestMemo::RawKey(kernel->input.ir, kernel->input.target.ToString(), keep_debug);
    const Digest ir_digest = Sha256(kernel->input.ir);
    const auto components = engine::ArtifactKeyComponents(*kernel, ir_digest, "fuzz-toolchain");
    const Digest key = engine::KeyFromComponents("artifact", components);
    if (key != engine::KeyFromComponents("artifact", engine::ArtifactKeyComponents(
                                                         *kernel, ir_digest, "fuzz-toolchain"))) {
      Fail("artifact key is not deterministic");
    }
    // A kind made canonical here (PTX): its text is a fixed point and reads.
    const compiler::InputKind& kind = compiler::InputKindOf(kernel->input.kind);
    if (kind.canonical_text != nullptr) {
      Expected<std::string> text = kind.canonical_text(kernel->input.ir, keep_debug);
      if (!text.ok()) {
        CheckErrorTravels(text.status());
      } else {
        Expected<std::string> again = kind.canonical_text(*text, keep_debug);
        if (!again.ok() || *again != *text) Fail("canonical PTX is not a fixed point");
        (void)compiler::PtxEntries(*text);
      }
    }
    const compiler::StageSpec* previous = nullptr;
    for (compiler::StageId id : compiler::InputKindOf(kernel->input.kind).stages(kernel->input.target.kind)) {
      const compiler::StageSpec& stage = compiler::StageOf(id);
      const std::optional<engine::KeyComponent> input =
          engine::StageInputComponent(stage, previous, compiler::InputKindOf(kernel->input.kind), ir_digest,
                                      kernel->input.ir, keep_debug);
      if (input) (void)engine::StageKey(stage, *input, kernel->input.target, kernel->input.options, "fuzz-toolchain");
      previous = &stage;
    }
  }
}

// Engine::Lookup's checks, in its order.
void DecodeLookup(const v1::LookupRequest& request) {
  if (!EnvelopeAccepted(request.header(), request.queries_size(), "lookup")) return;
  const engine::DescriptorLimits limits;
  for (const v1::FastKeyQuery& query : request.queries()) {
    if (query.fast_key().empty() || query.fast_key().size() > limits.max_fast_key_bytes ||
        query.namespace_().size() > limits.max_namespace_bytes) {
      continue;
    }
    Expected<compiler::Target> target = engine::DecodeTarget(query.target());
    if (!target.ok()) {
      CheckErrorTravels(target.status());
      continue;
    }
    CheckCanonicalTarget(*target);
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // Invalid UTF-8 in string fields makes protobuf log every refused parse.
  google::protobuf::SetLogHandler(nullptr);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto* bytes = reinterpret_cast<const char*>(data);
  const int length = static_cast<int>(size);
  v1::CompileRequest compile;
  if (compile.ParseFromArray(bytes, length)) DecodeCompile(compile);
  v1::LookupRequest lookup;
  if (lookup.ParseFromArray(bytes, length)) DecodeLookup(lookup);
  return 0;
}
