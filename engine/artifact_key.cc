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
  h.UpdateField(info.nvvm_version);
  h.UpdateField(info.nvrtc_version);
  h.UpdateField(info.cuda_headers_digest);
  h.UpdateField(info.cudadevrt_digest);
  h.UpdateField(info.compiler_rt_builtins_digest);
  h.UpdateField(info.device_libs_digest);
  return ToHex(h.Finish());
}

bool KeepsDebugInfo(const DecodedKernel& k) {
  const compiler::CompileOptions& o = k.input.options;
  return o.debug || (k.input.target.kind == compiler::TargetKind::kCuda && o.lineinfo);
}

std::vector<KeyComponent> ArtifactKeyComponents(const DecodedKernel& k, const Digest& canonical_ir,
                                                std::string_view toolchain_fingerprint,
                                                std::string_view canonical_text) {
  std::vector<KeyComponent> c = {
      {"schema", std::to_string(kKeySchemaVersion)},
      {"input_kind", std::string(compiler::InputKindOf(k.input.kind).key_name)},
      {std::string(compiler::InputKindOf(k.input.kind).canonical_component), ToHex(canonical_ir)},
  };
  const compiler::InputKind& kind = compiler::InputKindOf(k.input.kind);
  if (kind.describe != nullptr && !canonical_text.empty()) {
    std::vector<std::pair<std::string, std::string>> parts;
    kind.describe(canonical_text, parts);
    for (auto& [name, value] : parts) c.push_back({std::move(name), std::move(value)});
  }
  c.push_back({"target", k.input.target.ToString()});
  // Every option of the catalogue, at its value (defaults written out; an
  // option added since the first schema only when set: KeysOption).
  for (const OptionSpec& spec : OptionCatalogue()) {
    const std::uint32_t value = spec.get(k.input.options);
    if (KeysOption(spec, value)) c.push_back({"options." + std::string(spec.name), OptionValueText(spec, value)});
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

std::optional<KeyComponent> StageInputComponent(const compiler::StageSpec& stage, const compiler::StageSpec* previous,
                                                const compiler::InputKind& kind, const Digest& canonical_input,
                                                std::string_view previous_output, bool keep_debug) {
  if (previous == nullptr || stage.input == compiler::StageInput::kCanonicalInput) {
    return KeyComponent{std::string(kind.canonical_component), ToHex(canonical_input)};
  }
  const compiler::InputKind& input = compiler::InputKindOf(stage.input_kind);
  if (input.canonical_text == nullptr) {
    return KeyComponent{std::string(input.canonical_component), ToHex(Sha256(previous_output))};
  }
  Expected<std::string> text = input.canonical_text(previous_output, keep_debug);
  if (!text.ok()) return std::nullopt;
  return KeyComponent{std::string(input.canonical_component), ToHex(Sha256(*text))};
}

Digest StageKey(const compiler::StageSpec& stage, const KeyComponent& input, const compiler::Target& target,
                const compiler::CompileOptions& options, std::string_view toolchain_fingerprint) {
  return KeyFromComponents(stage.name, {input,
                                        {"target", target.ToString()},
                                        {"options", StageOptionsKey(options, stage.options)},
                                        {"toolchain", std::string(toolchain_fingerprint)}});
}

}  // namespace qdcache::engine
