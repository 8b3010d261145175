// qdcache explain --key / --fast-key: stored artifacts and aliases explained
// from their keys alone.
#include <iostream>
#include <set>

#include "client/cli/commands.h"
#include "client/cli/output.h"
#include "client/commands_json.h"
#include "client/json_views.h"
#include "common/digest.h"

namespace qdcache::cli {
namespace {

void PrintArtifact(const v1::StoredExplanation& e, const std::set<std::string>& differing) {
  std::cout << "artifact " << ToHex(e.artifact_key()) << "\n";
  if (!e.stored()) {
    std::cout << "  not stored (evicted or removed)\n";
    return;
  }
  std::cout << "  target                  " << e.target() << "\n  created                 "
            << client::IsoTime(e.created_unix_ms()) << "\n";
  if (!e.components_known()) {
    std::cout << "  components unknown (stored by a daemon before they were kept)\n";
    return;
  }
  for (const v1::KeyComponent& c : e.components()) {
    std::cout << (differing.count(c.name()) ? "* " : "  ") << c.name()
              << std::string(c.name().size() < 24 ? 24 - c.name().size() : 1, ' ') << c.value() << "\n";
  }
}

}  // namespace

int RunExplainStored(client::Client& client, const std::vector<std::string>& keys, const KernelOptions& kernel,
                     bool json) {
  Expected<v1::ExplainStoredRequest> request =
      client::ExplainStoredRequestOf(client, keys, kernel.fast_key_hex, kernel.ns, kernel.target);
  if (!request.ok()) return PrintError(request.status()), ExitCodeFor(request.status());
  Expected<v1::ExplainStoredResponse> response = client.ExplainStored(std::move(request).value());
  if (!response.ok()) return PrintError(response.status()), ExitCodeFor(response.status());
  if (json) {
    PrintJson(client::ExplainStoredJson(*response));
    return kExitOk;
  }
  std::set<std::string> differing;
  for (const v1::ComponentChange& c : response->differences()) differing.insert(c.name());
  if (response->has_alias()) {
    const v1::AliasExplanation& alias = response->alias();
    std::cout << "alias " << kernel.fast_key_hex << " in namespace '" << kernel.ns << "' for " << kernel.target
              << (alias.found() ? " names " + ToHex(alias.artifact_key()) : ": none") << "\n";
    for (const v1::Dependency& d : alias.dependencies()) {
      std::cout << "  dependency " << d.name() << "  " << ToHex(d.digest()) << "\n";
    }
    for (const v1::AliasConflictEvent& e : alias.conflicts()) {
      std::string names;
      for (const std::string& n : e.differing()) names += (names.empty() ? "" : ", ") + n;
      std::cout << "  conflict " << client::IsoTime(e.unix_ms()) << ": " << ShortKey(e.previous_artifact_key())
                << " -> " << ShortKey(e.artifact_key()) << " (" << (names.empty() ? "components unknown" : names)
                << "; " << client::AliasPolicyName(e.policy()) << (e.rebound() ? ", rebound" : ", kept") << ")\n";
    }
  }
  for (const v1::StoredExplanation& e : response->artifacts()) PrintArtifact(e, differing);
  if (response->artifacts_size() == 2) {
    const bool known = response->artifacts(0).components_known() && response->artifacts(1).components_known();
    std::cout << (!known              ? "cannot compare: components unknown\n"
                  : differing.empty() ? "same components\n"
                                      : "components marked * differ\n");
  }
  return kExitOk;
}

}  // namespace qdcache::cli
