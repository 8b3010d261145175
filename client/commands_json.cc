#include "client/commands_json.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <functional>
#include <map>
#include <set>

#include "client/fast_key.h"
#include "client/json_views.h"
#include "client/wire_target.h"
#include "common/digest.h"
#include "common/units.h"

namespace qdcache::client {
namespace {

// A command's arguments, read with their types checked and unknown names refused.
class Args {
 public:
  Args(std::string_view command, const nlohmann::json& args) : command_(command), args_(args) {}

  Status Check(const std::set<std::string>& known) const {
    if (args_.is_null()) return Status::Ok();
    if (!args_.is_object()) return InvalidArgument(command_ + ": the arguments are a JSON object");
    for (const auto& [name, value] : args_.items()) {
      if (known.count(name) == 0) {
        std::string names;
        for (const std::string& k : known) names += (names.empty() ? "" : ", ") + k;
        return InvalidArgument(command_ + ": unknown argument \"" + name + "\" (known: " +
                               (names.empty() ? "none" : names) + ")");
      }
    }
    return Status::Ok();
  }

  Expected<std::string> Text(const std::string& name, bool required = false) const {
    if (!Has(name)) {
      if (required) return InvalidArgument(command_ + ": argument \"" + name + "\" is required");
      return std::string();
    }
    if (!args_[name].is_string()) return InvalidArgument(command_ + ": \"" + name + "\" is a string");
    return args_[name].get<std::string>();
  }
  Expected<bool> Flag(const std::string& name) const {
    if (!Has(name)) return false;
    if (!args_[name].is_boolean()) return InvalidArgument(command_ + ": \"" + name + "\" is true or false");
    return args_[name].get<bool>();
  }
  Expected<std::uint32_t> Count(const std::string& name) const {
    if (!Has(name)) return 0u;
    const nlohmann::json& v = args_[name];
    if (!v.is_number_unsigned() || v.get<std::uint64_t>() > UINT32_MAX) {
      return InvalidArgument(command_ + ": \"" + name + "\" is a whole number from 0 to " + std::to_string(UINT32_MAX));
    }
    return v.get<std::uint32_t>();
  }
  bool Has(const std::string& name) const { return args_.is_object() && args_.contains(name); }

 private:
  std::string command_;
  const nlohmann::json& args_;
};

// The stats call answers the health question too: one round trip.
Expected<nlohmann::json> Ping(Client& client, const Args&) {
  QDC_ASSIGN_OR_RETURN(v1::Stats stats, client.Stats());
  return nlohmann::json{{"target", client.target()}, {"serving", true}, {"version", stats.version()}};
}

Expected<nlohmann::json> List(Client& client, const Args& a) {
  v1::ListRequest request;
  QDC_ASSIGN_OR_RETURN(const std::uint32_t limit, a.Count("limit"));
  request.set_limit(limit);
  QDC_ASSIGN_OR_RETURN(*request.mutable_target(), a.Text("target"));
  QDC_ASSIGN_OR_RETURN(*request.mutable_key_prefix(), a.Text("key_prefix"));
  if (a.Has("namespace")) {
    QDC_ASSIGN_OR_RETURN(*request.mutable_namespace_(), a.Text("namespace"));
  }
  QDC_ASSIGN_OR_RETURN(const bool aliases, a.Flag("aliases"));
  request.set_aliases(aliases);
  QDC_ASSIGN_OR_RETURN(v1::ListResponse response, client.List(std::move(request)));
  return ListJson(response, aliases);
}

Expected<nlohmann::json> Inspect(Client& client, const Args& a) {
  QDC_ASSIGN_OR_RETURN(const std::string text, a.Text("key", /*required=*/true));
  v1::InspectRequest request;
  QDC_ASSIGN_OR_RETURN(*request.mutable_artifact_key(), ResolveArtifactKey(client, text));
  QDC_ASSIGN_OR_RETURN(const bool include_ptx, a.Flag("include_ptx"));
  request.set_include_ptx(include_ptx);
  QDC_ASSIGN_OR_RETURN(v1::InspectResponse response, client.Inspect(std::move(request)));
  nlohmann::json j = ArtifactJson(response.artifact());
  if (include_ptx && !response.artifact().ptx().empty()) j["ptx"] = response.artifact().ptx();
  return j;
}

// Stored artifacts by key, or an alias, explained (qdcache explain --key /
// --fast-key).
Expected<nlohmann::json> ExplainStored(Client& client, const Args& a) {
  std::vector<std::string> keys;
  for (const char* name : {"key", "other"}) {
    QDC_ASSIGN_OR_RETURN(std::string key, a.Text(name));
    if (!key.empty()) keys.push_back(std::move(key));
  }
  QDC_ASSIGN_OR_RETURN(const std::string fast_key, a.Text("fast_key"));
  QDC_ASSIGN_OR_RETURN(const std::string ns, a.Text("namespace"));
  QDC_ASSIGN_OR_RETURN(const std::string target, a.Text("target"));
  QDC_ASSIGN_OR_RETURN(v1::ExplainStoredRequest request, ExplainStoredRequestOf(client, keys, fast_key, ns, target));
  QDC_ASSIGN_OR_RETURN(v1::ExplainStoredResponse response, client.ExplainStored(std::move(request)));
  return ExplainStoredJson(response);
}

// evict, trim and clear: one Evict call each, by its policy.
Expected<nlohmann::json> Evict(Client& client, const Args& a, std::string_view policy) {
  v1::EvictRequest request;
  if (policy == "evict") {
    QDC_ASSIGN_OR_RETURN(const std::string text, a.Text("older_than", true));
    Expected<std::chrono::seconds> age = ParseDuration(text);
    if (!age.ok()) return age.status().WithContext("older_than");
    request.set_older_than_seconds(static_cast<std::uint64_t>(age->count()));
  } else if (policy == "trim") {
    QDC_ASSIGN_OR_RETURN(const std::string text, a.Text("max_size", true));
    Expected<std::uint64_t> bytes = ParseSizeWithUnit(text);
    if (!bytes.ok()) return bytes.status().WithContext("max_size");
    request.set_trim_to_bytes(*bytes);
  } else {
    request.set_everything(true);
  }
  QDC_ASSIGN_OR_RETURN(const bool dry_run, a.Flag("dry_run"));
  request.set_dry_run(dry_run);
  QDC_ASSIGN_OR_RETURN(v1::EvictResponse response, client.Evict(std::move(request)));
  return EvictJson(response);
}

Expected<nlohmann::json> Verify(Client& client, const Args&) {
  QDC_ASSIGN_OR_RETURN(v1::VerifyResponse response, client.Verify());
  return VerifyJson(response);
}

Expected<nlohmann::json> Shutdown(Client& client, const Args&) {
  QDC_ASSIGN_OR_RETURN(v1::ShutdownResponse response, client.Shutdown());
  return nlohmann::json{{"stopping", true}, {"pid", response.pid()}};
}

Expected<nlohmann::json> Targets(Client& client, const Args&) {
  QDC_ASSIGN_OR_RETURN(v1::TargetsResponse response, client.Targets());
  return TargetsJson(response);
}

struct Command {
  std::set<std::string> args;
  std::function<Expected<nlohmann::json>(Client&, const Args&)> run;
};

const std::map<std::string, Command, std::less<>>& Commands() {
  static const std::map<std::string, Command, std::less<>> commands = {
      {"ping", {{}, Ping}},
      {"ls", {{"limit", "target", "namespace", "aliases", "key_prefix"}, List}},
      {"inspect", {{"key", "include_ptx"}, Inspect}},
      {"explain", {{"key", "other", "fast_key", "namespace", "target"}, ExplainStored}},
      {"evict", {{"older_than", "dry_run"}, [](Client& c, const Args& a) { return Evict(c, a, "evict"); }}},
      {"trim", {{"max_size", "dry_run"}, [](Client& c, const Args& a) { return Evict(c, a, "trim"); }}},
      {"clear", {{"dry_run"}, [](Client& c, const Args& a) { return Evict(c, a, "clear"); }}},
      {"verify", {{}, Verify}},
      {"shutdown", {{}, Shutdown}},
      {"targets", {{}, Targets}},
  };
  return commands;
}

}  // namespace

Expected<nlohmann::json> RunCommandJson(Client& client, std::string_view command, const nlohmann::json& args) {
  const auto found = Commands().find(command);
  if (found == Commands().end()) {
    std::string names;
    for (const auto& [name, _] : Commands()) names += (names.empty() ? "" : ", ") + name;
    return InvalidArgument("unknown command \"" + std::string(command) + "\" (known: " + names + ")");
  }
  const Args a(command, args);
  QDC_RETURN_IF_ERROR(a.Check(found->second.args));
  return found->second.run(client, a);
}

Expected<v1::ExplainStoredRequest> ExplainStoredRequestOf(Client& client, const std::vector<std::string>& keys,
                                                          const std::string& fast_key_hex, const std::string& ns,
                                                          const std::string& target) {
  v1::ExplainStoredRequest request;
  if (keys.size() > 2) return InvalidArgument("explain compares at most two artifact keys");
  if (keys.empty() == fast_key_hex.empty()) {
    return InvalidArgument("explain takes one or two artifact keys, or a fast key (with its target and namespace)");
  }
  for (const std::string& key : keys) {
    QDC_ASSIGN_OR_RETURN(*request.add_artifact_keys(), ResolveArtifactKey(client, key));
  }
  if (!fast_key_hex.empty()) {
    if (target.empty()) return InvalidArgument("explaining a fast key needs its target");
    v1::FastKeyQuery* alias = request.mutable_alias();
    QDC_ASSIGN_OR_RETURN(*alias->mutable_fast_key(), FastKeyFromHex(fast_key_hex));
    alias->set_namespace_(ns);
    QDC_ASSIGN_OR_RETURN(*alias->mutable_target(), ParseWireTarget(target));
  } else if (!ns.empty() || !target.empty()) {
    return InvalidArgument("a namespace and a target go with a fast key, not with artifact keys");
  }
  return request;
}

Expected<std::string> ResolveArtifactKey(Client& client, std::string_view text) {
  const bool hex = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isxdigit(static_cast<unsigned char>(c)) != 0;
  });
  if (!hex) return InvalidArgument("\"" + std::string(text) + "\" is not an artifact key (hex digits)");
  if (text.size() == 2 * kKeyBytes) {
    std::string key;
    (void)FromHex(text, &key);
    return key;
  }
  if (text.size() > 2 * kKeyBytes) {
    return InvalidArgument("\"" + std::string(text) + "\" is longer than an artifact key (64 hex digits)");
  }
  if (text.size() < kMinKeyPrefixDigits) {
    return InvalidArgument("artifact key prefix \"" + std::string(text) + "\" is too short: give at least " +
                           std::to_string(kMinKeyPrefixDigits) + " hex digits");
  }
  v1::ListRequest request;
  request.set_key_prefix(std::string(text));
  request.set_limit(kMaxKeyCandidates + 1);
  QDC_ASSIGN_OR_RETURN(v1::ListResponse found, client.List(std::move(request)));
  return UniqueKey(text, found);
}

Expected<std::string> UniqueKey(std::string_view prefix, const v1::ListResponse& found) {
  if (found.entries_size() == 0) return NotFound("no stored artifact key starts with " + std::string(prefix));
  if (found.entries_size() == 1) return found.entries(0).artifact_key();
  std::string candidates;
  for (int i = 0; i < found.entries_size() && i < static_cast<int>(kMaxKeyCandidates); ++i) {
    candidates += "\n  " + ToHex(found.entries(i).artifact_key()) + "  " + found.entries(i).target();
  }
  if (found.entries_size() > static_cast<int>(kMaxKeyCandidates)) candidates += "\n  ...";
  return InvalidArgument("artifact key prefix " + std::string(prefix) + " is ambiguous; it starts:" + candidates);
}

}  // namespace qdcache::client
