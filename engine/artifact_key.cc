#include "engine/artifact_key.h"

namespace qdcache::engine {

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
  std::vector<KeyComponent> c = {
      {"schema", std::to_string(kKeySchemaVersion)},
      {"input_kind", std::string(compiler::InputKindOf(k.input.kind).key_name)},
      {"ir", ToHex(canonical_ir)},
      {"target", k.input.target.ToString()},
  };
  // Every option of the catalogue, at its value (defaults written out).
  for (const OptionSpec& spec : OptionCatalogue()) {
    c.push_back({"options." + std::string(spec.name), OptionValueText(spec, spec.get(k.input.options))});
  }
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

Digest StageKey(const compiler::StageSpec& stage, const Digest& canonical_input,
                const compiler::StageSpec* previous, std::string_view previous_output,
                const compiler::Target& target, const compiler::CompileOptions& options,
                std::string_view toolchain_fingerprint) {
  const bool first = stage.input == compiler::StageInput::kCanonicalInput || previous == nullptr;
  KeyComponent input = first ? KeyComponent{"ir", ToHex(canonical_input)}
                             : KeyComponent{std::string(previous->name), ToHex(Sha256(previous_output))};
  return KeyFromComponents(stage.name, {std::move(input),
                                        {"target", target.ToString()},
                                        {"options", StageOptionsKey(options, stage.options)},
                                        {"toolchain", std::string(toolchain_fingerprint)}});
}

}  // namespace qdcache::engine
