#include "client/json_views.h"

#include <ctime>
#include <set>

#include "client/proto_json.h"
#include "common/digest.h"

namespace qdcache::client {

std::string CacheStatusName(v1::CacheStatus status) {
  switch (status) {
    case v1::CACHE_STATUS_COMPILED: return "compiled";
    case v1::CACHE_STATUS_HIT: return "hit";
    case v1::CACHE_STATUS_COALESCED: return "coalesced";
    case v1::CACHE_STATUS_ALIAS_HIT: return "alias_hit";
    case v1::CACHE_STATUS_STAGE_HIT: return "stage_hit";
    case v1::CACHE_STATUS_MISS: return "miss";
    case v1::CACHE_STATUS_ERROR: return "error";
    default: return "unknown";
  }
}

std::string KindName(v1::ArtifactKind kind) {
  switch (kind) {
    case v1::ARTIFACT_KIND_CUBIN: return "cubin";
    case v1::ARTIFACT_KIND_SHARED_OBJECT: return "shared_object";
    case v1::ARTIFACT_KIND_HSA_CODE_OBJECT: return "hsa_code_object";
    default: return "unknown";
  }
}

std::string IsoTime(std::uint64_t unix_ms) {
  std::time_t t = static_cast<std::time_t>(unix_ms / 1000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

nlohmann::json ErrorJson(const Status& status) {
  return {{"code", std::string(CodeName(status.code()))}, {"message", status.message()}};
}

nlohmann::json EntriesJson(const google::protobuf::RepeatedPtrField<v1::EntryMetadata>& entries) {
  nlohmann::json out = nlohmann::json::array();
  for (const v1::EntryMetadata& e : entries) {
    nlohmann::json entry{{"name", e.name()}};
    // Negative: the backend does not know (CPU kernels); left out.
    auto known = [&entry](const char* name, std::int32_t value) {
      if (value >= 0) entry[name] = value;
    };
    known("registers", e.registers());
    known("shared_bytes", e.shared_bytes());
    known("local_bytes", e.local_bytes());
    known("max_threads_per_block", e.max_threads_per_block());
    // AMDGPU: from the code object's metadata (0 for other families).
    if (e.wavefront_size() > 0) {
      entry["sgprs"] = e.sgprs();
      entry["vgprs"] = e.vgprs();
      entry["agprs"] = e.agprs();
      entry["wavefront_size"] = e.wavefront_size();
      entry["kernarg_bytes"] = e.kernarg_bytes();
    }
    out.push_back(std::move(entry));
  }
  return out;
}

namespace {

// The artifact's fields shared by a compile result and an inspected entry.
void AddArtifact(const v1::Artifact& a, nlohmann::json& j) {
  j["artifact_key"] = ToHex(a.artifact_key());
  j["kind"] = KindName(a.kind());
  j["size"] = a.payload().size();
  j["payload_digest"] = ToHex(a.payload_digest());
  j["target"] = a.target();
  j["toolchain"] = a.toolchain();
  j["compile_seconds"] = a.timings().total_seconds();
  j["entries"] = EntriesJson(a.entries());
  if (a.lowered_names_size() > 0) {
    nlohmann::json names = nlohmann::json::object();
    for (const v1::LoweredName& n : a.lowered_names()) names[n.expression()] = n.name();
    j["lowered_names"] = std::move(names);
  }
  if (!a.compile_log().empty()) j["compile_log"] = a.compile_log();
}

}  // namespace

std::string AliasPolicyName(v1::AliasPolicy policy) {
  switch (policy) {
    case v1::ALIAS_POLICY_REBIND: return "rebind";
    case v1::ALIAS_POLICY_STRICT: return "strict";
    case v1::ALIAS_POLICY_OFF: return "off";
    default: return "unspecified";
  }
}

nlohmann::json ChangesJson(const google::protobuf::RepeatedPtrField<v1::ComponentChange>& changes) {
  nlohmann::json out = nlohmann::json::array();
  for (const v1::ComponentChange& c : changes) {
    out.push_back({{"name", c.name()},
                   {"before", c.has_before() ? nlohmann::json(c.before()) : nlohmann::json(nullptr)},
                   {"after", c.has_after() ? nlohmann::json(c.after()) : nlohmann::json(nullptr)}});
  }
  return out;
}

namespace {

nlohmann::json DependenciesJson(const google::protobuf::RepeatedPtrField<v1::Dependency>& dependencies) {
  nlohmann::json out = nlohmann::json::array();
  for (const v1::Dependency& d : dependencies) out.push_back({{"name", d.name()}, {"digest", ToHex(d.digest())}});
  return out;
}

nlohmann::json ComponentsJson(const google::protobuf::RepeatedPtrField<v1::KeyComponent>& components) {
  nlohmann::json out = nlohmann::json::object();
  for (const v1::KeyComponent& c : components) out[c.name()] = c.value();
  return out;
}

}  // namespace

nlohmann::json ResultJson(const v1::CompileResult& r) {
  nlohmann::json j;
  j["status"] = CacheStatusName(r.status());
  if (r.has_error()) {
    j["error"] = ErrorJson(Status(static_cast<Code>(r.error().code()), r.error().message()));
  }
  if (r.has_artifact()) AddArtifact(r.artifact(), j);
  if (r.has_alias_conflict()) {
    const v1::AliasConflict& c = r.alias_conflict();
    j["alias_conflict"] = {{"previous_artifact_key", ToHex(c.previous_artifact_key())},
                           {"policy", AliasPolicyName(c.policy())},
                           {"rebound", c.rebound()},
                           {"components_unknown", c.components_unknown()},
                           {"changes", ChangesJson(c.changes())},
                           {"message", c.message()}};
  }
  if (r.has_miss_reason()) {
    const v1::MissReason& m = r.miss_reason();
    j["miss_reason"] = {{"previous_artifact_key", ToHex(m.previous_artifact_key())},
                        {"basis", m.basis()},
                        {"changes", ChangesJson(m.changes())},
                        {"message", m.message()}};
  }
  if (r.dependencies_size() > 0) j["dependencies"] = DependenciesJson(r.dependencies());
  return j;
}

nlohmann::json ExplainStoredJson(const v1::ExplainStoredResponse& response) {
  nlohmann::json artifacts = nlohmann::json::array();
  for (const v1::StoredExplanation& e : response.artifacts()) {
    nlohmann::json a{{"artifact_key", ToHex(e.artifact_key())}, {"stored", e.stored()},
                     {"components_known", e.components_known()}, {"components", ComponentsJson(e.components())}};
    if (e.stored()) {
      a["target"] = e.target();
      a["toolchain"] = e.toolchain();
      a["created"] = IsoTime(e.created_unix_ms());
    }
    artifacts.push_back(std::move(a));
  }
  nlohmann::json out{{"artifacts", std::move(artifacts)}, {"differences", ChangesJson(response.differences())}};
  if (response.has_alias()) {
    const v1::AliasExplanation& alias = response.alias();
    nlohmann::json conflicts = nlohmann::json::array();
    for (const v1::AliasConflictEvent& e : alias.conflicts()) {
      conflicts.push_back({{"time", IsoTime(e.unix_ms())},
                           {"previous_artifact_key", ToHex(e.previous_artifact_key())},
                           {"artifact_key", ToHex(e.artifact_key())},
                           {"differing", std::vector<std::string>(e.differing().begin(), e.differing().end())},
                           {"policy", AliasPolicyName(e.policy())},
                           {"rebound", e.rebound()}});
    }
    out["alias"] = {{"found", alias.found()},
                    {"artifact_key", alias.found() ? nlohmann::json(ToHex(alias.artifact_key())) : nlohmann::json(nullptr)},
                    {"dependencies", DependenciesJson(alias.dependencies())},
                    {"conflicts", std::move(conflicts)}};
  }
  return out;
}

nlohmann::json ArtifactJson(const v1::Artifact& artifact) {
  nlohmann::json j = nlohmann::json::object();
  AddArtifact(artifact, j);
  j["created"] = IsoTime(artifact.created_unix_ms());
  return j;
}

std::optional<double> CacheLevel::hit_rate() const {
  if (hits + misses == 0) return std::nullopt;
  return static_cast<double>(hits) / static_cast<double>(hits + misses);
}

std::vector<CacheLevel> CacheLevels(const v1::Stats& s) {
  return {{"alias", s.alias_hits(), s.misses(), true},
          {"artifact", s.hits(), s.artifact_misses(), true},
          {"stage", s.stage_hits(), s.stage_misses(), true},
          {"remote", s.remote_hits(), s.remote_misses(),
           !s.remote_state().empty() && s.remote_state() != "off"}};
}

nlohmann::json StatsJson(const v1::Stats& stats) {
  nlohmann::json j = ProtoToJson(stats);
  nlohmann::json levels = nlohmann::json::object();
  for (const CacheLevel& level : CacheLevels(stats)) {
    const std::optional<double> rate = level.hit_rate();
    levels[level.name] = {{"hits", level.hits},
                          {"misses", level.misses},
                          {"hit_rate", rate ? nlohmann::json(*rate) : nlohmann::json(nullptr)},
                          {"enabled", level.enabled}};
  }
  j["levels"] = std::move(levels);
  return j;
}

nlohmann::json ListJson(const v1::ListResponse& response, bool aliases) {
  if (aliases) {
    nlohmann::json list = nlohmann::json::array();
    for (const v1::AliasSummary& a : response.aliases()) {
      list.push_back({{"namespace", a.namespace_()},
                      {"target", a.target()},
                      {"fast_key", ToHex(a.fast_key())},
                      {"artifact_key", ToHex(a.artifact_key())}});
    }
    return {{"aliases", std::move(list)}};
  }
  nlohmann::json entries = nlohmann::json::array();
  for (const v1::EntrySummary& e : response.entries()) {
    entries.push_back({{"artifact_key", ToHex(e.artifact_key())},
                       {"kind", KindName(e.kind())},
                       {"target", e.target()},
                       {"size", e.payload_bytes()},
                       {"stored_bytes", e.bytes()},
                       {"created", IsoTime(e.created_unix_ms())},
                       {"last_access", IsoTime(e.last_access_unix_ms())},
                       {"compile_seconds", e.compile_seconds()}});
  }
  return {{"entries", std::move(entries)}};
}

nlohmann::json EvictJson(const v1::EvictResponse& response) {
  return {{"evicted_entries", response.entries()},
          {"evicted_bytes", response.bytes()},
          {"dry_run", response.dry_run()}};
}

nlohmann::json VerifyJson(const v1::VerifyResponse& response) {
  nlohmann::json dropped = nlohmann::json::array();
  for (const std::string& k : response.dropped_keys()) dropped.push_back(ToHex(k));
  return {{"checked", response.checked()}, {"dropped", response.dropped()}, {"dropped_keys", dropped}};
}

nlohmann::json ExplainJson(const v1::ExplainResponse& response) {
  nlohmann::json explanations = nlohmann::json::array();
  for (const v1::Explanation& e : response.explanations()) {
    nlohmann::json one;
    if (e.has_error()) one["error"] = ErrorJson(Status(static_cast<Code>(e.error().code()), e.error().message()));
    one["artifact_key"] = ToHex(e.artifact_key());
    one["components"] = nlohmann::json::object();
    for (const v1::KeyComponent& c : e.components()) one["components"][c.name()] = c.value();
    explanations.push_back(std::move(one));
  }
  const std::set<std::string> differing(response.differing().begin(), response.differing().end());
  return {{"explanations", std::move(explanations)}, {"differing", differing}};
}

nlohmann::json TargetsJson(const v1::TargetsResponse& response) {
  nlohmann::json families = nlohmann::json::array();
  for (const v1::TargetFamily& f : response.families()) {
    families.push_back({{"family", f.family()},
                        {"syntax", f.syntax()},
                        {"available", f.available()},
                        {"processors", std::vector<std::string>(f.processors().begin(), f.processors().end())},
                        {"features", std::vector<std::string>(f.features().begin(), f.features().end())}});
  }
  return {{"families", std::move(families)}};
}

}  // namespace qdcache::client
