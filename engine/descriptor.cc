#include "engine/descriptor.h"

#include <algorithm>
#include <google/protobuf/unknown_field_set.h>

#include <string>

#include "compiler/cuda_program.h"
#include "engine/manifest.h"

namespace qdcache::engine {
namespace {

bool IsIdentifierLike(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) {
    return c >= 0x21 && c <= 0x7e;  // printable ASCII, no spaces
  });
}

// A CUDA C++ descriptor's program (DecodedKernel::program); any other
// kind's descriptor must leave the CUDA C++ fields empty.
Status DecodeCudaProgram(const v1::KernelDescriptor& d, const DescriptorLimits& limits, DecodedKernel& k) {
  if (k.input.kind != compiler::InputKindId::kCuda) {
    if (d.headers_size() + d.name_expressions_size() + d.defines_size() + d.undefines_size() == 0) {
      return Status::Ok();
    }
    return InvalidArgument("headers, name_expressions, defines and undefines are for CUDA C++ input only (kind " +
                           std::string(compiler::InputKindOf(k.input.kind).name) + ")");
  }
  if (static_cast<std::size_t>(d.headers_size()) > limits.max_headers) {
    return InvalidArgument("too many headers: " + std::to_string(d.headers_size()) + " (limit " +
                           std::to_string(limits.max_headers) + ")");
  }
  if (static_cast<std::size_t>(d.name_expressions_size()) > limits.max_name_expressions) {
    return InvalidArgument("too many name_expressions (limit " + std::to_string(limits.max_name_expressions) + ")");
  }
  if (static_cast<std::size_t>(d.defines_size() + d.undefines_size()) > limits.max_macros) {
    return InvalidArgument("too many defines and undefines (limit " + std::to_string(limits.max_macros) + ")");
  }
  std::uint64_t bytes = d.ir().size();
  compiler::CudaSources sources;
  sources.source = d.ir();
  for (const v1::SourceFile& h : d.headers()) {
    bytes += h.name().size() + h.content().size();
    sources.headers.emplace_back(h.name(), h.content());
  }
  for (const std::string& e : d.name_expressions()) {
    bytes += e.size();
    sources.name_expressions.push_back(e);
  }
  for (const std::string& m : d.defines()) sources.defines.push_back(m);
  for (const std::string& m : d.undefines()) sources.undefines.push_back(m);
  if (bytes > limits.max_ir_bytes) {
    return Status(Code::kResourceExhausted, "the CUDA C++ source and its " + std::to_string(d.headers_size()) +
                                                " headers are " + std::to_string(bytes) +
                                                " bytes, above the limit of " + std::to_string(limits.max_ir_bytes) +
                                                " (--max-ir-bytes)");
  }
  k.program = compiler::EncodeCudaProgram(sources);
  return Status::Ok();
}

}  // namespace

Expected<compiler::InputKindId> DecodeSourceKind(int kind, std::string_view bytes) {
  switch (kind) {
    case v1::SOURCE_KIND_UNSPECIFIED:
    case v1::SOURCE_KIND_LLVM_IR:
      return compiler::RecogniseInput(bytes).id;
    case v1::SOURCE_KIND_PTX:
      return compiler::InputKindId::kPtx;
    case v1::SOURCE_KIND_NVVM_IR:
      return compiler::InputKindId::kNvvm;
    case v1::SOURCE_KIND_CUDA:
      return compiler::InputKindId::kCuda;
    default:
      return InvalidArgument("source kind " + std::to_string(kind) +
                             " is unknown to this daemon (it takes LLVM IR, PTX, NVVM IR and CUDA C++)");
  }
}

Expected<compiler::Target> DecodeTarget(const v1::Target& t) {
  compiler::Target target;
  switch (t.kind_case()) {
    case v1::Target::kCuda:
      target.kind = compiler::TargetKind::kCuda;
      target.sm = t.cuda().sm();
      if (target.sm.empty()) return InvalidArgument("target.cuda.sm is empty (expected e.g. \"sm_90\")");
      break;
    case v1::Target::kCpu:
      target.kind = compiler::TargetKind::kCpu;
      target.cpu = t.cpu().cpu();
      if (target.cpu.empty()) return InvalidArgument("target.cpu.cpu is empty (expected e.g. \"x86-64\")");
      target.features.assign(t.cpu().features().begin(), t.cpu().features().end());
      break;
    case v1::Target::kAmdgpu:
      target.kind = compiler::TargetKind::kAmdgpu;
      target.cpu = t.amdgpu().processor();
      if (target.cpu.empty()) {
        return InvalidArgument("target.amdgpu.processor is empty (expected e.g. \"gfx942\")");
      }
      target.features.assign(t.amdgpu().features().begin(), t.amdgpu().features().end());
      break;
    default:
      return InvalidArgument("target is not set (expected cuda, cpu or amdgpu)");
  }
  return compiler::NormalizeTarget(std::move(target));
}

Expected<compiler::CompileOptions> DecodeOptions(const v1::CompileOptions& o,
                                                  compiler::TargetKind kind) {
  // Options are a closed list: a field this daemon does not know (from a newer
  // client, say) could change codegen without changing the key, so refuse it.
  const google::protobuf::Reflection& reflection = *o.GetReflection();
  const google::protobuf::UnknownFieldSet& unknown = reflection.GetUnknownFields(o);
  if (!unknown.empty()) {
    return InvalidArgument("options field " + std::to_string(unknown.field(0).number()) +
                           " is unknown to this daemon (options are a closed list)");
  }
  compiler::CompileOptions out;
  for (const OptionSpec& spec : OptionCatalogue()) {
    const google::protobuf::FieldDescriptor* field = o.GetDescriptor()->FindFieldByNumber(spec.field);
    if (field == nullptr) return Internal("option " + std::string(spec.name) + " has no field in CompileOptions");
    if (!reflection.HasField(o, field)) continue;  // its default
    const std::uint64_t value = field->cpp_type() == google::protobuf::FieldDescriptor::CPPTYPE_BOOL
                                    ? (reflection.GetBool(o, field) ? 1 : 0)
                                    : reflection.GetUInt32(o, field);
    if (Status s = CheckOptionValue(spec, value); !s.ok()) return s.WithContext("options");
    spec.set(out, static_cast<std::uint32_t>(value));
  }
  // Options the target's family never reads cannot split its keys.
  return ForFamily(out, FamilyOf(kind).option_family);
}

Status CheckFastKey(const std::string& fast_key, const std::string& ns, const DescriptorLimits& limits) {
  if (fast_key.size() > limits.max_fast_key_bytes) {
    return InvalidArgument("fast_key is longer than " + std::to_string(limits.max_fast_key_bytes) + " bytes");
  }
  if (ns.size() > limits.max_namespace_bytes) {
    return InvalidArgument("namespace is longer than " + std::to_string(limits.max_namespace_bytes) + " bytes");
  }
  return Status::Ok();
}

Expected<DecodedKernel> DecodeKernel(const v1::KernelDescriptor& d, const DescriptorLimits& limits) {
  DecodedKernel k;
  const std::string& ir = d.ir();
  if (ir.size() > limits.max_ir_bytes) {
    return Status(Code::kResourceExhausted, "ir is " + std::to_string(ir.size()) +
                                                " bytes, above the limit of " +
                                                std::to_string(limits.max_ir_bytes) +
                                                " (--max-ir-bytes)");
  }
  k.input.ir = ir;
  QDC_ASSIGN_OR_RETURN(k.input.kind, DecodeSourceKind(d.kind(), ir));
  QDC_ASSIGN_OR_RETURN(k.input.target, DecodeTarget(d.target()));
  const compiler::InputKind& kind = compiler::InputKindOf(k.input.kind);
  if (kind.stages(k.input.target.kind).empty()) {
    return InvalidArgument(std::string(kind.name) + " input cannot be compiled for " +
                           std::string(FamilyOf(k.input.target.kind).name) + " targets");
  }
  QDC_RETURN_IF_ERROR(DecodeCudaProgram(d, limits, k));
  QDC_ASSIGN_OR_RETURN(k.input.options, DecodeOptions(d.options(), k.input.target.kind));
  k.input.options = compiler::OptionsForKind(kind, k.input.target.kind, k.input.options);

  if (static_cast<std::size_t>(d.entry_points_size()) > limits.max_entry_points) {
    return InvalidArgument("too many entry_points (limit " + std::to_string(limits.max_entry_points) + ")");
  }
  for (const std::string& e : d.entry_points()) {
    if (!IsIdentifierLike(e)) return InvalidArgument("entry point \"" + e + "\" is not a symbol name");
    k.input.entry_points.push_back(e);
  }

  QDC_RETURN_IF_ERROR(CheckFastKey(d.fast_key(), d.namespace_(), limits));
  if (!d.namespace_().empty() && d.fast_key().empty()) {
    return InvalidArgument("namespace given without a fast_key");
  }
  // Dependencies and the alias policy are about the alias: both need one.
  if (d.fast_key().empty() && d.dependencies_size() > 0) {
    return InvalidArgument("dependencies given without a fast_key (they are kept with its alias)");
  }
  if (d.fast_key().empty() && d.alias_policy() != v1::ALIAS_POLICY_UNSPECIFIED) {
    return InvalidArgument("alias_policy given without a fast_key (it is about its alias)");
  }
  if (!v1::AliasPolicy_IsValid(d.alias_policy())) {
    return InvalidArgument("unknown alias_policy " + std::to_string(d.alias_policy()));
  }
  QDC_ASSIGN_OR_RETURN(k.manifest, EncodeManifest(d.dependencies()));

  if (static_cast<std::size_t>(d.key_extras_size()) > limits.max_key_extras) {
    return InvalidArgument("too many key_extras (limit " + std::to_string(limits.max_key_extras) + ")");
  }
  for (const auto& [name, value] : d.key_extras()) {
    if (name.empty() || name.size() + value.size() > limits.max_key_extra_bytes) {
      return InvalidArgument("key_extras entry \"" + name.substr(0, 64) + "\" is empty or too long");
    }
    k.key_extras.emplace_back(name, value);
  }
  std::sort(k.key_extras.begin(), k.key_extras.end());
  k.no_store = d.no_store();
  k.recache = d.recache();
  if (k.no_store && k.recache) return InvalidArgument("no_store and recache are mutually exclusive");
  return k;
}

}  // namespace qdcache::engine
