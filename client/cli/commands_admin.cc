// Store administration: ls, inspect, evict/trim/clear, verify, shutdown and
// targets. Each asks client::RunCommandJson for the document `--json`
// prints (what the C ABI and Python get too) and shows it as text otherwise.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "client/cli/commands.h"
#include "client/cli/output.h"
#include "client/cli/progress.h"
#include "client/commands_json.h"
#include "common/digest.h"
#include "common/units.h"

namespace qdcache::cli {
namespace {

std::string Text(const nlohmann::json& j, const char* name) { return j.value(name, std::string()); }
unsigned long long Number(const nlohmann::json& j, const char* name) {
  return j.value(name, static_cast<unsigned long long>(0));
}

// Prints a command's answer: its document (--json) or, through `text`, a view of it.
template <typename TextView>
int Show(const Expected<nlohmann::json>& document, bool json, TextView text) {
  if (!document.ok()) return PrintError(document.status()), ExitCodeFor(document.status());
  if (json) {
    PrintJson(*document);
  } else {
    text(*document);
  }
  return kExitOk;
}

// Runs `command` and shows its answer.
template <typename TextView>
int Run(client::Client& client, const char* command, const nlohmann::json& args, bool json, TextView text) {
  return Show(client::RunCommandJson(client, command, args), json, text);
}

void PrintEntries(const nlohmann::json& d) {
  std::printf("%-64s  %-13s  %-22s  %10s  %10s  %s\n", "ARTIFACT KEY", "KIND", "TARGET", "SIZE", "STORED",
              "LAST ACCESS");
  for (const nlohmann::json& e : d.at("entries")) {
    std::printf("%-64s  %-13s  %-22s  %10llu  %10llu  %s\n", Text(e, "artifact_key").c_str(),
                Text(e, "kind").c_str(), Text(e, "target").c_str(), Number(e, "size"), Number(e, "stored_bytes"),
                Text(e, "last_access").c_str());
  }
}

void PrintAliases(const nlohmann::json& d) {
  std::printf("%-20s  %-22s  %-32s  %s\n", "NAMESPACE", "TARGET", "FAST KEY", "ARTIFACT KEY");
  for (const nlohmann::json& a : d.at("aliases")) {
    std::printf("%-20s  %-22s  %-32s  %s\n", Text(a, "namespace").c_str(), Text(a, "target").c_str(),
                Text(a, "fast_key").c_str(), Text(a, "artifact_key").c_str());
  }
}

void PrintArtifact(const nlohmann::json& a) {
  for (const char* name : {"artifact_key", "kind", "target", "size", "payload_digest", "toolchain", "created"}) {
    const nlohmann::json& v = a.at(name);
    std::printf("%-16s %s\n", name, v.is_string() ? v.get<std::string>().c_str() : v.dump().c_str());
  }
  std::printf("%-16s %.4f\n", "compile_seconds", a.value("compile_seconds", 0.0));
  for (const nlohmann::json& e : a.at("entries")) {
    std::string line = Text(e, "name");
    // Only what the backend knows: a CPU kernel has no register count.
    for (const char* field : {"registers", "shared_bytes", "local_bytes", "max_threads_per_block", "sgprs", "vgprs",
                              "agprs", "wavefront_size", "kernarg_bytes"}) {
      if (e.contains(field)) line += std::string("  ") + field + "=" + e[field].dump();
    }
    std::printf("%-16s %s\n", "entry", line.c_str());
  }
  if (a.contains("lowered_names")) {
    for (const auto& [expression, name] : a.at("lowered_names").items()) {
      std::printf("%-16s %s -> %s\n", "lowered_name", expression.c_str(), name.get<std::string>().c_str());
    }
  }
  if (a.contains("compile_log")) std::printf("log:\n%s\n", Text(a, "compile_log").c_str());
}

}  // namespace

int RunList(client::Client& client, const ListArgs& args) {
  nlohmann::json a = nlohmann::json::object();
  if (args.limit != 0) a["limit"] = args.limit;
  if (!args.target.empty()) a["target"] = args.target;
  if (args.ns) a["namespace"] = *args.ns;
  if (args.aliases) a["aliases"] = true;
  return Run(client, "ls", a, args.json, [&](const nlohmann::json& d) {
    if (args.aliases) {
      PrintAliases(d);
    } else {
      PrintEntries(d);
    }
  });
}

int RunInspect(client::Client& client, const std::string& key_text, const std::string& output, bool json) {
  Expected<std::string> key = client::ResolveArtifactKey(client, key_text);
  if (!key.ok()) return PrintError(key.status()), ExitCodeFor(key.status());
  v1::InspectRequest request;
  request.set_artifact_key(*key);
  Expected<v1::InspectResponse> response = client.Inspect(std::move(request));
  if (!response.ok()) return PrintError(response.status()), kExitFailure;
  if (!output.empty()) {
    Status s = WriteOutputFile(OutputPath(output), response->artifact().payload());
    if (!s.ok()) return PrintError(s), kExitFailure;
  }
  const nlohmann::json document = client::ArtifactJson(response->artifact());
  if (json) {
    PrintJson(document);
  } else if (output != "-") {
    PrintArtifact(document);
  }
  return kExitOk;
}

int RunEvict(client::Client& client, const EvictArgs& args) {
  // By the command given, never by which value is empty: an empty
  // --older-than "" must be refused, not read as `clear`.
  nlohmann::json a = nlohmann::json::object();
  if (args.command == "evict") a["older_than"] = args.older_than;
  if (args.command == "trim") a["max_size"] = args.max_size;
  if (args.dry_run) a["dry_run"] = true;
  return Run(client, args.command.c_str(), a, args.json, [](const nlohmann::json& d) {
    std::printf("%s %llu entries, %llu bytes\n", d.value("dry_run", false) ? "would evict" : "evicted",
                Number(d, "evicted_entries"), Number(d, "evicted_bytes"));
  });
}

int RunVerify(client::Client& client, bool json) {
  // One unary call: nothing to count while it runs, so the elapsed time,
  // erased before the answer is shown.
  Expected<nlohmann::json> document = [&] {
    Progress progress("verifying", 0);
    ElapsedTicker ticker(progress);
    return client::RunCommandJson(client, "verify", nlohmann::json::object());
  }();
  return Show(document, json, [](const nlohmann::json& d) {
    std::printf("checked %llu entries, dropped %llu bad ones\n", Number(d, "checked"), Number(d, "dropped"));
    for (const nlohmann::json& k : d.at("dropped_keys")) std::printf("  dropped %s\n", k.get<std::string>().c_str());
  });
}

int RunShutdown(client::Client& client, bool json) {
  return Run(client, "shutdown", nlohmann::json::object(), json, [&](const nlohmann::json& d) {
    std::printf("qdcached (pid %llu) at %s is stopping\n", Number(d, "pid"), client.target().c_str());
  });
}

int RunTargets(client::Client& client, bool json) {
  return Run(client, "targets", nlohmann::json::object(), json, [](const nlohmann::json& d) {
    for (const nlohmann::json& f : d.at("families")) {
      std::printf("%s%s\n", Text(f, "syntax").c_str(), f.value("available", true) ? "" : "  (not available)");
      // "  heading (N):" then the names, wrapped to lines of about 100 columns.
      auto list = [](const char* heading, const nlohmann::json& names) {
        if (names.empty()) return;
        std::printf("  %s (%zu):\n", heading, names.size());
        std::string line;
        for (const nlohmann::json& n : names) {
          if (!line.empty() && line.size() + n.get<std::string>().size() > 96) {
            std::printf("   %s\n", line.c_str());
            line.clear();
          }
          line += " " + n.get<std::string>();
        }
        std::printf("   %s\n", line.c_str());
      };
      const std::string family = Text(f, "family");
      list(family == "cuda" ? "SMs" : family == "amdgpu" ? "processors" : "CPUs", f.at("processors"));
      list(family == "amdgpu" ? "features (:name+ / :name-)" : "features (+name / -name)", f.at("features"));
    }
  });
}

}  // namespace qdcache::cli
