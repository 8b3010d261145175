// One function per sub-command. Each returns the process exit status.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "client/cli/kernel_options.h"
#include "client/cli/manifest.h"
#include "client/client.h"

namespace qdcache::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitMiss = 3;

// kExitUsage for INVALID_ARGUMENT, kExitFailure for any other error.
[[nodiscard]] inline int ExitCodeFor(const Status& s) {
  return s.code() == Code::kInvalidArgument ? kExitUsage : kExitFailure;
}

struct CompileArgs {
  std::string file;
  KernelOptions kernel;                      // key_extras filled from key_extra_flags
  std::vector<std::string> key_extra_flags;  // --key-extra NAME=VALUE
  std::string output;
  std::string ptx_output;
  bool json = false;
  bool no_store = false;
  bool recache = false;
  std::vector<std::string> dependency_files;  // --dep FILE
  std::string alias_policy;                   // --alias-policy; empty: the daemon's default
  bool explain_miss = false;                  // --explain-miss
};

struct LookupArgs {
  std::vector<std::string> fast_keys_hex;   // --fast-key (client/fast_key.h)
  std::vector<std::string> fast_keys_text;  // --fast-key-text: the text's own bytes
  std::string fast_keys_file;  // one hex key per line
  std::string ns;
  std::string target;
  std::string output;  // file (one key) or directory (several)
  bool json = false;
  bool check_deps = false;  // --check-deps: a hit whose dependency files changed is a miss
};

struct ExportArgs {
  std::string out;                // the bundle file to write
  std::optional<std::string> ns;  // only this namespace's aliases and their artifacts
  std::string since;              // duration ("7d"); empty: no age limit
  bool all_tenants = false;       // every tenant's aliases (admin)
  std::string sign_key;           // private key file signing every entry; empty: unsigned
  bool json = false;
};

struct ImportArgs {
  std::string file;
  bool keep_tenants = false;  // aliases keep the bundle's tenants (admin)
  bool json = false;
};

[[nodiscard]] int RunCompile(client::Client& client, const CompileArgs& args);
// Shows the key components of `args.file` (and of `second_file`, if given,
// compiled with the same options), marking those that differ.
[[nodiscard]] int RunExplain(client::Client& client, const CompileArgs& args,
                             const std::string& second_file);
// Stored artifacts (`keys`: hex or unique prefixes; two: what differs) or,
// without keys, the alias of kernel.fast_key_hex in kernel.ns for
// kernel.target, explained from keys alone.
[[nodiscard]] int RunExplainStored(client::Client& client, const std::vector<std::string>& keys,
                                   const KernelOptions& kernel, bool json);
[[nodiscard]] int RunLookup(client::Client& client, const LookupArgs& args);
// With `zero`, the daemon zeroes its counters after reading them (admin);
// what is printed is the counters up to then.
[[nodiscard]] int RunStats(client::Client& client, bool json, bool zero = false);
struct ListArgs {
  unsigned limit = 0;             // 0: all
  std::string target;             // only this target's
  std::optional<std::string> ns;  // only what this namespace's aliases name
  bool aliases = false;           // list the aliases instead
  bool json = false;
};
[[nodiscard]] int RunList(client::Client& client, const ListArgs& args);
// `key_text`: a key or a unique prefix of one (client::ResolveArtifactKey).
// `output` "-" writes the payload to stdout.
[[nodiscard]] int RunInspect(client::Client& client, const std::string& key_text, const std::string& output,
                             bool json);
struct EvictArgs {
  std::string command;     // "evict", "trim" or "clear"
  std::string older_than;  // evict's
  std::string max_size;    // trim's
  bool dry_run = false;
  bool json = false;
};
[[nodiscard]] int RunEvict(client::Client& client, const EvictArgs& args);
[[nodiscard]] int RunVerify(client::Client& client, bool json);
// Asks the daemon to drain and stop.
[[nodiscard]] int RunShutdown(client::Client& client, bool json);
// Lists what the daemon compiles for.
[[nodiscard]] int RunTargets(client::Client& client, bool json);
// Writes a bundle to `args.out` as common/output_file.h writes any output. A progress line
// on stderr when it is a terminal; one summary line (or JSON) on stdout.
[[nodiscard]] int RunExport(client::Client& client, const ExportArgs& args);
// Exit 0 even when entries were skipped (they are counted); 1 when the file
// is not a bundle, is truncated or damaged past recovery (what came before
// is imported), or the daemon refused the call.
[[nodiscard]] int RunImport(client::Client& client, const ImportArgs& args);
[[nodiscard]] int RunPing(client::Client& client, bool json);
// Writes a new Ed25519 key pair: `path` (private, mode 600) and `path`.pub;
// never replaces an existing file. Needs no daemon.
[[nodiscard]] int RunKeygen(const std::string& path, bool json);

struct WarmArgs {
  std::string manifest;  // a file, or "-" for stdin
  int batch = 32;        // kernels per call
  int jobs = 2;          // calls in flight
  bool call_deadline = false;  // --timeout given: it bounds each Compile call
  bool json = false;
};

// Reads and parses the manifest (before anything connects or is sent). On
// failure it has printed why; `*exit_code` is 2 for a malformed manifest, 1
// when it cannot be read.
[[nodiscard]] std::optional<std::vector<ManifestEntry>> LoadManifest(const WarmArgs& args,
                                                                     int* exit_code);
// Compiles every entry through the cache (client/cli/warm.h), with a progress
// bar on a terminal, then prints a summary (or JSON) listing each failure
// with its manifest line. Exit 1 when any entry failed or was not sent.
[[nodiscard]] int RunWarm(client::Client& client, const WarmArgs& args,
                          const std::vector<ManifestEntry>& entries);

}  // namespace qdcache::cli
