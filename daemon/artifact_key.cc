#include "daemon/artifact_key.h"

namespace qdcache::daemon {

std::string ToolchainFingerprint(const compiler::ToolchainInfo& info, std::string_view daemon_version) {
  Sha256Hasher h;
  h.UpdateField("qdcache-toolchain");
  h.UpdateU64(kKeySchemaVersion);
  h.UpdateField(daemon_version);
  h.UpdateField(info.llvm_version);
  h.UpdateField(info.cuda_version);
  h.UpdateField(info.nvjitlink_version);
  h.UpdateField(info.ptx_isa_version);
  h.UpdateField(info.libdevice_digest);
  h.UpdateField(info.libc_version);
  return ToHex(h.Finish());
}

bool KeepsDebugInfo(const DecodedKernel& k) {
  const compiler::CompileOptions& o = k.input.options;
  return o.debug || (k.input.target.kind == compiler::TargetKind::kCuda && o.lineinfo);
}

std::vector<KeyComponent> ArtifactKeyComponents(const DecodedKernel& k, const Digest& canonical_ir,
                                                std::string_view toolchain_fingerprint) {
  const compiler::CompileOptions& o = k.input.options;
  auto flag = [](bool b) { return std::string(b ? "1" : "0"); };
  std::vector<KeyComponent> c = {
      {"schema", std::to_string(kKeySchemaVersion)},
      {"input_kind", k.ir_kind == IrKind::kBitcode ? "bitcode" : "text"},
      {"ir", ToHex(canonical_ir)},
      {"target", k.target},
      {"options.opt_level", std::to_string(o.opt_level)},
      {"options.fast_math", flag(o.fast_math)},
      {"options.fmad", flag(o.fmad)},
      {"options.debug", flag(o.debug)},
      {"options.lineinfo", flag(o.lineinfo)},
      {"options.max_registers", std::to_string(o.max_registers)},
      {"options.link_libdevice", flag(o.link_libdevice)},
  };
  for (const auto& [name, value] : k.key_extras) c.push_back({"key_extras." + name, value});
  c.push_back({"toolchain", std::string(toolchain_fingerprint)});
  return c;
}

Digest KeyFromComponents(std::string_view kind, const std::vector<KeyComponent>& components) {
  Sha256Hasher h;
  h.UpdateField("qdcache-" + std::string(kind) + "-key");
  h.UpdateU64(kKeySchemaVersion);
  h.UpdateU64(components.size());
  for (const KeyComponent& c : components) {
    h.UpdateField(c.name);
    h.UpdateField(c.value);
  }
  return h.Finish();
}

Digest PtxStageKey(const Digest& canonical_ir, const compiler::Target& target,
                   const compiler::CompileOptions& options, std::string_view toolchain_fingerprint) {
  return KeyFromComponents("ptx", {{"ir", ToHex(canonical_ir)},
                                   {"target", target.ToString()},
                                   {"options", compiler::PtxOptionsKey(options)},
                                   {"toolchain", std::string(toolchain_fingerprint)}});
}

Digest CubinStageKey(std::string_view ptx, const compiler::Target& target,
                     const compiler::CompileOptions& options, std::string_view toolchain_fingerprint) {
  return KeyFromComponents("cubin", {{"ptx", ToHex(Sha256(ptx))},
                                     {"target", target.ToString()},
                                     {"options", compiler::LinkOptionsKey(options)},
                                     {"toolchain", std::string(toolchain_fingerprint)}});
}

std::string ShortKey(std::string_view key) { return ToHex(key).substr(0, 16); }

}  // namespace qdcache::daemon
