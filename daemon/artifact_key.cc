#include "daemon/artifact_key.h"

namespace qdcache::daemon {

std::string ToolchainFingerprint(const compiler::ToolchainInfo& info, std::string_view daemon_version) {
  Sha256Hasher h;
  h.UpdateField("qdcache-toolchain");
  h.UpdateU64(kKeySchemaVersion);
  h.UpdateField(daemon_version);
  h.UpdateField(info.llvm_version);
  h.UpdateField(info.cuda_version);
  h.UpdateField(info.ptx_isa_version);
  h.UpdateField(info.libdevice_digest);
  return ToHex(h.Finish());
}

Digest ComputeArtifactKey(const DecodedKernel& k, std::string_view toolchain_fingerprint) {
  const compiler::CompileOptions& o = k.input.options;
  Sha256Hasher h;
  h.UpdateField("qdcache-artifact-key");
  h.UpdateU64(kKeySchemaVersion);
  h.UpdateU64(static_cast<std::uint64_t>(k.ir_kind));
  h.UpdateField(k.input.ir);
  h.UpdateField(k.target);
  h.UpdateU64(static_cast<std::uint64_t>(o.opt_level));
  h.UpdateU64(o.fast_math);
  h.UpdateU64(o.fmad);
  h.UpdateU64(o.debug);
  h.UpdateU64(o.lineinfo);
  h.UpdateU64(o.max_registers);
  h.UpdateU64(o.link_libdevice);
  h.UpdateU64(k.key_extras.size());
  for (const auto& [name, value] : k.key_extras) {
    h.UpdateField(name);
    h.UpdateField(value);
  }
  h.UpdateField(toolchain_fingerprint);
  return h.Finish();
}

}  // namespace qdcache::daemon
