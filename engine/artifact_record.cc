#include "engine/artifact_record.h"

#include <chrono>
#include <cstddef>
#include <string_view>
#include <utility>
#include <vector>

#include <google/protobuf/arena.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>

#include "common/digest.h"
#include "common/utf8.h"
#include "engine/cached_output.pb.h"

namespace qdcache::engine {

namespace {

using internal::CachedEntry;

void AddEntries(const std::vector<compiler::EntryInfo>& entries,
                google::protobuf::RepeatedPtrField<CachedEntry>* out) {
  for (const compiler::EntryInfo& e : entries) {
    CachedEntry* m = out->Add();
    m->set_name(e.name);
    m->set_registers(e.registers);
    m->set_shared_bytes(e.shared_bytes);
    m->set_local_bytes(e.local_bytes);
    m->set_max_threads_per_block(e.max_threads_per_block);
    m->set_sgprs(e.sgprs);
    m->set_vgprs(e.vgprs);
    m->set_agprs(e.agprs);
    m->set_wavefront_size(e.wavefront_size);
    m->set_kernarg_bytes(e.kernarg_bytes);
  }
}

void AddLoweredNames(const std::vector<compiler::LoweredName>& names,
                     google::protobuf::RepeatedPtrField<internal::CachedLoweredName>* out) {
  for (const compiler::LoweredName& n : names) {
    internal::CachedLoweredName* m = out->Add();
    m->set_expression(n.expression);
    m->set_name(n.name);
  }
}

}  // namespace

std::string EncodeStage(const compiler::CompileOutput& output) {
  internal::StageOutput s;
  s.set_kind(static_cast<std::uint32_t>(output.kind));
  s.set_payload(output.payload);
  s.set_ptx(output.ptx);
  s.set_log(output.log);
  AddEntries(output.entries, s.mutable_entries());
  AddLoweredNames(output.lowered_names, s.mutable_lowered_names());
  return s.SerializeAsString();
}

Expected<compiler::CompileOutput> DecodeStage(std::string_view bytes) {
  internal::StageOutput s;
  if (!s.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return DataLoss("stage output does not decode");
  }
  compiler::CompileOutput out;
  out.kind = static_cast<compiler::ArtifactKind>(s.kind());
  out.payload = std::move(*s.mutable_payload());
  out.ptx = std::move(*s.mutable_ptx());
  out.log = std::move(*s.mutable_log());
  for (const CachedEntry& m : s.entries()) {
    out.entries.push_back({m.name(), m.registers(), m.shared_bytes(), m.local_bytes(), m.max_threads_per_block(),
                           m.sgprs(), m.vgprs(), m.agprs(), m.wavefront_size(), m.kernarg_bytes()});
  }
  for (const internal::CachedLoweredName& n : s.lowered_names()) out.lowered_names.push_back({n.expression(), n.name()});
  return out;
}

store::ArtifactRecord MakeRecord(const std::string& artifact_key, const std::string& target,
                                 const std::string& toolchain, compiler::CompileOutput output,
                                 double total_seconds, const std::vector<KeyComponent>& components) {
  internal::RecordMetadata meta;
  for (const KeyComponent& c : components) {
    internal::CachedComponent* kept = meta.add_components();
    kept->set_name(c.name);
    kept->set_value(c.value);
  }
  AddEntries(output.entries, meta.mutable_entries());
  AddLoweredNames(output.lowered_names, meta.mutable_lowered_names());
  internal::CachedTimings* t = meta.mutable_timings();
  t->set_parse_seconds(output.timings.parse_seconds);
  t->set_optimize_seconds(output.timings.optimize_seconds);
  t->set_codegen_seconds(output.timings.codegen_seconds);
  t->set_link_seconds(output.timings.link_seconds);
  t->set_total_seconds(total_seconds);

  store::ArtifactRecord r;
  r.key = artifact_key;
  r.kind = static_cast<std::uint32_t>(output.kind);
  r.target = target;
  r.toolchain = toolchain;
  r.payload = std::move(output.payload);
  r.payload_digest = DigestBytes(Sha256(r.payload));
  r.ptx = std::move(output.ptx);
  r.metadata = meta.SerializeAsString();
  r.compile_log = std::move(output.log);
  r.compile_micros = static_cast<std::uint64_t>(total_seconds * 1e6);
  r.created_unix_ms = static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(
          std::chrono::system_clock::now().time_since_epoch())
          .count());
  return r;
}

std::optional<std::vector<KeyComponent>> StoredComponents(const store::ArtifactRecord& record) {
  internal::RecordMetadata meta;
  if (!meta.ParseFromString(record.metadata) || meta.components().empty()) return std::nullopt;
  std::vector<KeyComponent> out;
  out.reserve(static_cast<std::size_t>(meta.components_size()));
  for (const internal::CachedComponent& c : meta.components()) out.push_back({c.name(), c.value()});
  if (DigestBytes(KeyFromComponents("artifact", out)) != record.key) return std::nullopt;
  return out;
}

namespace {

// The part of a record's metadata that serving reads: every top-level field
// but the key components (field 14, kept for explain: dozens of strings,
// most of the parse). The serializer writes fields in number order, so the
// components are a suffix and the rest is parsed where it lies; bytes in
// another order are copied without them. Nullopt when the fields do not
// even delimit (the record is corrupt).
constexpr int kComponentsField = 14;

std::optional<std::string_view> ServedMetadata(std::string_view metadata, std::string& scratch) {
  using google::protobuf::internal::WireFormatLite;
  const auto* data = reinterpret_cast<const std::uint8_t*>(metadata.data());
  google::protobuf::io::CodedInputStream in(data, static_cast<int>(metadata.size()));
  std::size_t prefix_end = 0;   // the served fields before the first component end here
  bool after_component = false;
  bool copied = false;          // a served field followed a component: `scratch` holds them all
  while (true) {
    const auto begin = static_cast<std::size_t>(in.CurrentPosition());
    const std::uint32_t tag = in.ReadTag();
    if (tag == 0) {
      if (begin != metadata.size()) return std::nullopt;
      break;
    }
    if (!WireFormatLite::SkipField(&in, tag)) return std::nullopt;
    const auto end = static_cast<std::size_t>(in.CurrentPosition());
    if (WireFormatLite::GetTagFieldNumber(tag) == kComponentsField) {
      after_component = true;
    } else if (!after_component) {
      prefix_end = end;
    } else {
      if (!copied) scratch.assign(metadata.substr(0, prefix_end));
      copied = true;
      scratch.append(metadata.substr(begin, end - begin));
    }
  }
  return copied ? std::string_view(scratch) : metadata.substr(0, prefix_end);
}

// Everything of the wire artifact but its payload and PTX.
Status FillWireMetadata(const store::ArtifactRecord& r, v1::Artifact* out) {
  // Parsed on an arena that starts on the stack, and without the key
  // components (ServedMetadata): parsing and freeing those was a fifth of a
  // warm start's lookup time in the daemon.
  alignas(std::max_align_t) char block[4096];
  google::protobuf::ArenaOptions options;
  options.initial_block = block;
  options.initial_block_size = sizeof(block);
  google::protobuf::Arena arena(options);
  internal::RecordMetadata& meta = *google::protobuf::Arena::CreateMessage<internal::RecordMetadata>(&arena);
  std::string scratch;
  const std::optional<std::string_view> served = ServedMetadata(r.metadata, scratch);
  if (!served || !meta.ParseFromArray(served->data(), static_cast<int>(served->size()))) {
    return DataLoss("artifact metadata does not decode");
  }
  switch (r.kind) {
    case static_cast<std::uint32_t>(compiler::ArtifactKind::kCubin):
      out->set_kind(v1::ARTIFACT_KIND_CUBIN);
      break;
    case static_cast<std::uint32_t>(compiler::ArtifactKind::kSharedObject):
      out->set_kind(v1::ARTIFACT_KIND_SHARED_OBJECT);
      break;
    case static_cast<std::uint32_t>(compiler::ArtifactKind::kHsaCodeObject):
      out->set_kind(v1::ARTIFACT_KIND_HSA_CODE_OBJECT);
      break;
    default:
      return DataLoss("artifact kind " + std::to_string(r.kind) + " is unknown");
  }
  out->set_artifact_key(r.key);
  out->set_payload_digest(r.payload_digest);
  out->set_target(r.target);
  out->set_toolchain(r.toolchain);
  for (const CachedEntry& e : meta.entries()) {
    v1::EntryMetadata* m = out->add_entries();
    m->set_name(ValidUtf8(e.name()));  // a protobuf string on the wire
    m->set_registers(e.registers());
    m->set_shared_bytes(e.shared_bytes());
    m->set_local_bytes(e.local_bytes());
    m->set_max_threads_per_block(e.max_threads_per_block());
    m->set_sgprs(e.sgprs());
    m->set_vgprs(e.vgprs());
    m->set_agprs(e.agprs());
    m->set_wavefront_size(e.wavefront_size());
    m->set_kernarg_bytes(e.kernarg_bytes());
  }
  v1::CompileTimings* t = out->mutable_timings();
  t->set_parse_seconds(meta.timings().parse_seconds());
  t->set_optimize_seconds(meta.timings().optimize_seconds());
  t->set_codegen_seconds(meta.timings().codegen_seconds());
  t->set_link_seconds(meta.timings().link_seconds());
  t->set_total_seconds(meta.timings().total_seconds());
  for (const internal::CachedLoweredName& n : meta.lowered_names()) {
    v1::LoweredName* m = out->add_lowered_names();
    m->set_expression(ValidUtf8(n.expression()));
    m->set_name(ValidUtf8(n.name()));
  }
  out->set_compile_log(ValidUtf8(r.compile_log));
  out->set_created_unix_ms(r.created_unix_ms);
  return Status::Ok();
}

}  // namespace

Status ToWireArtifact(const store::ArtifactRecord& r, bool include_ptx, v1::Artifact* out, bool with_payload) {
  QDC_RETURN_IF_ERROR(FillWireMetadata(r, out));
  if (with_payload) out->set_payload(r.payload);
  if (include_ptx) out->set_ptx(r.ptx);
  return Status::Ok();
}

Status CheckEntryPoints(const v1::Artifact& artifact,
                        const google::protobuf::RepeatedPtrField<std::string>& wanted) {
  for (const std::string& name : wanted) {
    bool found = false;
    for (const v1::EntryMetadata& e : artifact.entries()) found = found || e.name() == name;
    if (!found) {
      std::string have;
      for (const v1::EntryMetadata& e : artifact.entries()) have += (have.empty() ? "" : ", ") + e.name();
      return InvalidArgument("entry point \"" + name + "\" is not in the module (entries: " + have + ")");
    }
  }
  return Status::Ok();
}

}  // namespace qdcache::engine
