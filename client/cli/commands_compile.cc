#include <filesystem>
#include <iostream>
#include <set>
#include <sstream>

#include "client/cli/commands.h"
#include "client/cli/cuda_headers.h"
#include "client/cli/output.h"
#include "client/dependencies.h"
#include "client/fast_key.h"
#include "client/wire_target.h"
#include "common/digest.h"

namespace qdcache::cli {
namespace {

// Bad flags are a usage error; an unreadable file is a plain failure.
// The descriptor of `file` with the options of `a` (flags). INVALID_ARGUMENT
// for bad flags, NOT_FOUND when the file cannot be read.
Expected<v1::KernelDescriptor> BuildDescriptor(const CompileArgs& a, const std::string& file) {
  KernelOptions options = a.kernel;
  QDC_RETURN_IF_ERROR(ParseKeyExtras(a.key_extra_flags, &options.key_extras));
  QDC_ASSIGN_OR_RETURN(v1::KernelDescriptor d, DescriptorWithoutIr(options, file));
  QDC_RETURN_IF_ERROR(ReadFile(file, d.mutable_ir()));
  if (d.kind() == v1::SOURCE_KIND_CUDA) {
    QDC_RETURN_IF_ERROR(AddCudaHeaders(options.header_flags, options.include_dirs, file, d));
  }
  d.set_no_store(a.no_store);
  d.set_recache(a.recache);
  for (const std::string& path : a.dependency_files) {
    QDC_ASSIGN_OR_RETURN(*d.add_dependencies(), client::FileDependency(path));
  }
  if (a.alias_policy == "rebind") d.set_alias_policy(v1::ALIAS_POLICY_REBIND);
  if (a.alias_policy == "strict") d.set_alias_policy(v1::ALIAS_POLICY_STRICT);
  if (a.alias_policy == "off") d.set_alias_policy(v1::ALIAS_POLICY_OFF);
  return d;
}

// Prints one result and writes its payload; returns the exit status. With
// `json` and `json_results`, the result's JSON goes there instead of stdout
// (one document for several results).
int Report(const v1::CompileResult& r, const std::string& output, const std::string& ptx_output,
           bool json, nlohmann::json* json_results = nullptr, bool explain_miss = false) {
  if (r.has_artifact()) {
    if (!ptx_output.empty() && r.artifact().ptx().empty()) {
      return PrintError(InvalidArgument("--ptx-out: a " + KindName(r.artifact().kind()) + " has no PTX")),
             kExitUsage;
    }
    // PTX first: if it cannot be written, no artifact file is left behind either.
    if (!ptx_output.empty()) {
      Status s = WriteOutputFile(OutputPath(ptx_output), r.artifact().ptx());
      if (!s.ok()) return PrintError(s), kExitFailure;
    }
    if (!output.empty()) {
      Status s = WriteOutputFile(OutputPath(output), r.artifact().payload());
      if (!s.ok()) return PrintError(s), kExitFailure;
    }
  }
  if (json) {
    nlohmann::json j = ResultJson(r);
    if (!output.empty() && r.has_artifact()) j["output"] = output;
    if (json_results != nullptr) {
      json_results->push_back(std::move(j));
    } else {
      PrintJson(j);
    }
  } else if (!r.has_error()) {
    // With the artifact on stdout (-o -), the summary goes to stderr.
    const bool to_stdout = output == "-" || ptx_output == "-";
    (to_stdout ? std::cerr : std::cout)
        << ResultLine(r) << (output.empty() || !r.has_artifact() ? "" : "  -> " + output) << "\n";
    if (explain_miss && r.has_miss_reason()) {
      (to_stdout ? std::cerr : std::cout) << "miss reason: " << r.miss_reason().message() << "\n";
    }
  }
  if (r.has_error()) {
    PrintError(Status(static_cast<Code>(r.error().code()), r.error().message()));
    return kExitFailure;
  }
  // A conflict is said on stderr whatever the format; under strict it fails
  // the command (the artifact was still written), for CI.
  if (r.has_alias_conflict()) {
    std::cerr << "qdcache: warning: " << r.alias_conflict().message() << "\n";
    if (r.alias_conflict().has_warning()) return kExitFailure;
  }
  return r.status() == v1::CACHE_STATUS_MISS ? kExitMiss : kExitOk;
}

// Looks up `keys` (raw bytes) in one round trip; prints and writes results,
// naming each key by its hex spelling.
int LookupKeys(client::Client& client, const LookupArgs& args, const std::vector<std::string>& keys,
               const v1::Target& target);

}  // namespace

int RunCompile(client::Client& client, const CompileArgs& args) {
  Expected<v1::KernelDescriptor> d = BuildDescriptor(args, args.file);
  if (!d.ok()) return PrintError(d.status()), ExitCodeFor(d.status());
  v1::CompileRequest request;
  *request.add_kernels() = std::move(d).value();
  request.set_include_ptx(!args.ptx_output.empty());
  Expected<v1::CompileResponse> response = client.Compile(std::move(request));
  if (!response.ok()) return PrintError(response.status()), kExitFailure;
  if (response->results_size() != 1) {
    return PrintError(Internal("daemon answered " + std::to_string(response->results_size()) +
                               " results for 1 kernel")),
           kExitFailure;
  }
  return Report(response->results(0), args.output, args.ptx_output, args.json, nullptr, args.explain_miss);
}

int RunExplain(client::Client& client, const CompileArgs& args, const std::string& second_file) {
  v1::ExplainRequest request;
  for (const std::string& file : {args.file, second_file}) {
    if (file.empty()) continue;
    Expected<v1::KernelDescriptor> d = BuildDescriptor(args, file);
    if (!d.ok()) return PrintError(d.status()), ExitCodeFor(d.status());
    *request.add_kernels() = std::move(d).value();
  }
  Expected<v1::ExplainResponse> response = client.Explain(std::move(request));
  if (!response.ok()) return PrintError(response.status()), kExitFailure;
  const std::set<std::string> differing(response->differing().begin(), response->differing().end());
  if (args.json) {
    PrintJson(client::ExplainJson(*response));
  } else {
    for (int i = 0; i < response->explanations_size(); ++i) {
      const v1::Explanation& e = response->explanations(i);
      std::cout << (i == 0 ? args.file : second_file) << "\n";
      if (e.has_error()) {
        std::cout << "  error: " << e.error().message() << "\n";
        continue;
      }
      std::cout << "  artifact_key            " << ToHex(e.artifact_key()) << "\n";
      for (const v1::KeyComponent& c : e.components()) {
        std::cout << (differing.count(c.name()) ? "* " : "  ") << c.name()
                  << std::string(c.name().size() < 24 ? 24 - c.name().size() : 1, ' ') << c.value() << "\n";
      }
    }
    if (response->explanations_size() == 2) {
      std::cout << (differing.empty() ? "same key\n" : "components marked * differ\n");
    }
  }
  for (const v1::Explanation& e : response->explanations()) {
    if (e.has_error()) return PrintError(Status(static_cast<Code>(e.error().code()), e.error().message())), kExitFailure;
  }
  return kExitOk;
}

int RunLookup(client::Client& client, const LookupArgs& args) {
  Expected<v1::Target> target = client::ParseWireTarget(args.target);
  if (!target.ok()) return PrintError(target.status()), kExitUsage;
  std::vector<std::string> keys = args.fast_keys_hex;
  if (!args.fast_keys_file.empty()) {
    std::string text;
    Status read = ReadFile(args.fast_keys_file, &text);
    if (!read.ok()) return PrintError(read), kExitFailure;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
      if (std::string_view key = Trimmed(line); !key.empty()) keys.emplace_back(key);
    }
  }
  // Every key as bytes, named by its hex spelling in output files and JSON.
  std::vector<std::string> raw;
  for (const std::string& hex : keys) {
    Expected<std::string> key = client::FastKeyFromHex(hex);
    if (!key.ok()) return PrintError(key.status()), kExitUsage;
    raw.push_back(std::move(key).value());
  }
  for (const std::string& text : args.fast_keys_text) raw.push_back(text);
  if (raw.empty()) return PrintError(InvalidArgument("no fast keys given")), kExitUsage;
  if (raw.size() > 1 && args.output == "-") {
    return PrintError(InvalidArgument("-o - takes the artifact of one fast key; several go to a directory")),
           kExitUsage;
  }
  return LookupKeys(client, args, raw, *target);
}

namespace {

int LookupKeys(client::Client& client, const LookupArgs& args, const std::vector<std::string>& keys,
               const v1::Target& target) {
  v1::LookupRequest request;
  for (const std::string& key : keys) {
    v1::FastKeyQuery* q = request.add_queries();
    q->set_fast_key(key);
    q->set_namespace_(args.ns);
    *q->mutable_target() = target;
  }
  Expected<v1::LookupResponse> response = client.Lookup(std::move(request));
  if (!response.ok()) return PrintError(response.status()), kExitFailure;
  if (args.check_deps) {
    for (v1::CompileResult& r : *response->mutable_results()) {
      if (client::DropIfStale(&r, client::FileUnchanged) && !args.json) {
        std::cerr << "qdcache: stale: a dependency file of the alias changed since it was compiled\n";
      }
    }
  }
  if (response->results_size() != static_cast<int>(keys.size())) {
    return PrintError(Internal("daemon answered a different number of results")), kExitFailure;
  }
  const bool many = keys.size() > 1;
  if (many && !args.output.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(args.output, ec);
    if (ec) return PrintError(InvalidArgument("cannot create " + args.output + ": " + ec.message())), kExitFailure;
  }
  int worst = kExitOk;
  // Several keys with --json: one document, {"results": [...]}, each result
  // naming its fast key.
  nlohmann::json results = nlohmann::json::array();
  for (int i = 0; i < response->results_size(); ++i) {
    const v1::CompileResult& r = response->results(i);
    std::string out = args.output;
    if (many && !out.empty() && r.has_artifact()) {
      out += "/" + ToHex(keys[i]) + "." + KindExtension(r.artifact().kind());
    }
    if (!args.json && many) std::cout << ToHex(keys[i]) << "  ";
    const std::size_t reported = results.size();
    int rc = Report(r, out, "", args.json, many ? &results : nullptr);
    if (results.size() > reported) results.back()["fast_key"] = ToHex(keys[i]);
    if (!args.json && r.status() == v1::CACHE_STATUS_MISS && !many) std::cerr << "qdcache: miss\n";
    // A failure outranks a miss: scripts must not read an error as "not cached".
    if (rc == kExitFailure || worst == kExitOk) worst = rc;
  }
  if (many && args.json) PrintJson({{"results", results}});
  return worst;
}

}  // namespace
}  // namespace qdcache::cli
