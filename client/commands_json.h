// Introspection and administration by command name, answered as JSON: the
// C ABI's qdcache_command_json (and so Python's Client.ls, .inspect, ...).
// Each command is the CLI's of the same name, takes the CLI's options as a
// JSON object and answers with the document `qdcache <command> --json`
// prints (client/json_views.h), so a program sees what a user sees.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "client/client.h"
#include "common/expected.h"

namespace qdcache::client {

// Commands and their arguments (every one optional unless marked):
//   ping      {}                                      -> {"target", "serving", "version"}
//   ls        {"limit", "target", "namespace", "aliases", "key_prefix"}
//   inspect   {"key" (required; a unique prefix will do), "include_ptx"}
//   evict     {"older_than" (required: "7d"), "dry_run"}
//   trim      {"max_size" (required: "10G"), "dry_run"}
//   clear     {"dry_run"}                             (every artifact and stage output)
//   verify    {}
//   shutdown  {}                                      -> {"stopping": true, "pid"}
//   targets   {}
//   explain   {"key", "other" (artifact keys, hex or unique prefixes)} or
//             {"fast_key" (hex), "namespace", "target"}: stored artifacts or
//             an alias explained from keys alone (ExplainStoredJson)
// INVALID_ARGUMENT for an unknown command, an unknown argument or one of
// the wrong type; otherwise what the call answers.
[[nodiscard]] Expected<nlohmann::json> RunCommandJson(Client& client, std::string_view command,
                                                      const nlohmann::json& args);

// The ExplainStored request of `qdcache explain --key ... | --fast-key ...`:
// one or two artifact keys (hex, or unique prefixes resolved with the
// daemon), or a fast key (hex) with its namespace and target.
// INVALID_ARGUMENT for neither or both, or a bad key, fast key or target.
[[nodiscard]] Expected<v1::ExplainStoredRequest> ExplainStoredRequestOf(Client& client,
                                                                        const std::vector<std::string>& keys,
                                                                        const std::string& fast_key_hex,
                                                                        const std::string& ns,
                                                                        const std::string& target);

// The raw 32-byte artifact key that `text` names: 64 hex digits, or a
// unique prefix of at least 4 (asked of the daemon, like git's short
// hashes). INVALID_ARGUMENT for what is not hex, a prefix too short, or one
// that several stored keys share (naming up to 8 of them); NOT_FOUND when
// no stored key starts with it.
[[nodiscard]] Expected<std::string> ResolveArtifactKey(Client& client, std::string_view text);

// The fewest digits a short key may have, and the most candidates an
// ambiguous one lists.
inline constexpr std::size_t kMinKeyPrefixDigits = 4;
inline constexpr std::size_t kMaxKeyCandidates = 8;

// The one key of `found` (a List by `prefix`): NOT_FOUND when none,
// INVALID_ARGUMENT listing up to kMaxKeyCandidates when several.
[[nodiscard]] Expected<std::string> UniqueKey(std::string_view prefix, const v1::ListResponse& found);

}  // namespace qdcache::client
