#include "client/cli/cli.h"

#include "common/compile_options.h"

#include <CLI/CLI.hpp>
#include <optional>
#include <string_view>
#include <vector>

#include "client/cli/commands.h"
#include "client/cli/connect.h"
#include "client/cli/credentials.h"
#include "client/cli/output.h"
#include "client/cli/ptxas.h"
#include "client/wire_kind.h"

namespace qdcache::cli {

namespace {

// The options that shape a kernel's compile, shared by compile and explain:
// one flag per row of the option catalogue, then the descriptor's own.
void AddKernelOptions(CLI::App* app, CompileArgs& c) {
  KernelOptions& k = c.kernel;
  app->add_option("--target", k.target, "cuda:sm_XX or cpu:NAME[+feature...]")->required();
  app->add_option("--kind", k.kind,
                  "What the file holds: " + client::SourceKindNames() +
                      " (default: by its extension: .ptx, .nvvm, .cu/.cuh (cuda); anything else LLVM IR)");
  for (const OptionSpec& spec : OptionCatalogue()) {
    const std::string name(spec.name);
    const std::string help = std::string(spec.help);
    if (spec.type == OptionType::kCount) {
      app->add_option_function<std::uint32_t>(
             std::string(spec.flag), [&k, name](const std::uint32_t& v) { k.options[name] = v; },
             help + " (default " + std::to_string(spec.default_value) + ")")
          ->check(CLI::Range(spec.min, spec.max));
    } else {
      // A flag sets the value its default is not: --fast-math on, --no-fmad off.
      const std::uint32_t set_to = spec.default_value == 0 ? 1 : 0;
      app->add_flag_callback(std::string(spec.flag), [&k, name, set_to] { k.options[name] = set_to; }, help);
    }
  }
  app->add_option("--entry", k.entries, "Entry point that must exist (repeatable)");
  app->add_option("--name-expression", k.name_expressions,
                  "CUDA C++: an expression whose lowered name the artifact returns, e.g. 'scale<float>' (repeatable)");
  app->add_option("-D,--define", k.defines, "CUDA C++: NAME or NAME=VALUE, a macro (repeatable)");
  app->add_option("-U,--undefine", k.undefines, "CUDA C++: NAME, a macro undefined (repeatable)");
  app->add_option("--header", k.header_flags,
                  "CUDA C++: NAME=FILE, a header the source includes as \"NAME\", read here and sent (repeatable)");
  app->add_option("-I,--include-dir", k.include_dirs,
                  "CUDA C++: a directory the CLI looks in for headers the source includes by \"name\" "
                  "(repeatable; <...> is the daemon's CUDA toolkit)");
  app->add_flag("--json", c.json, "Print JSON");
  app->add_option("--key-extra", c.key_extra_flags, "NAME=VALUE folded into the key (repeatable)");
}

// --json anywhere on the command line: a usage error is answered in JSON too.
bool AsksForJson(int argc, const char* const* argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::string_view(argv[i]) == "--json") return true;
  }
  return false;
}

}  // namespace

int Main(int argc, const char* const* argv) {
  // ptxas's command line is ptxas's, not ours: through a link named ptxas,
  // or `qdcache ptxas ...`.
  const std::string_view program = argc > 0 ? std::string_view(argv[0]) : std::string_view();
  if (program.substr(program.rfind('/') + 1) == "ptxas") return RunPtxas({argv + 1, argv + argc});
  if (argc > 1 && std::string_view(argv[1]) == "ptxas") return RunPtxas({argv + 2, argv + argc});

  CLI::App app{"qdcache: client of the qdcached compile cache. With no daemon at the socket, it starts\n"
               "one for this user (not for ping, nor with --no-spawn); that daemon exits after 10 idle\n"
               "minutes and logs to <socket>.log."};
  app.require_subcommand(1);
  client::ClientOptions connect;
  double timeout_seconds = 300;
  app.add_option("--socket", connect.socket_path, "Daemon unix socket (default: $XDG_RUNTIME_DIR/qdcached.sock)");
  app.add_option("--addr", connect.address, "Daemon TCP address HOST:PORT (instead of the socket)");
  bool spawn = true;
  CLI::Option* spawn_flag = app.add_flag(
      "--spawn,!--no-spawn", spawn,
      "Start a per-user qdcached if none serves the socket (default: on, except for ping; "
      "$QDCACHE_AUTOSPAWN=1|0 sets the default; $QDCACHED_BIN names the daemon, "
      "$QDCACHE_SPAWN_IDLE_EXIT its idle exit, default 10m)");
  CLI::Option* timeout_option =
      app.add_option("--timeout", timeout_seconds,
                     "Deadline per call, seconds (default 300; warm: none unless given)")
          ->check(CLI::PositiveNumber);
  // TCP security (docs/protocol.md).
  std::string token_file;
  app.add_option("--tls-ca", connect.tls_ca_file, "TLS to --addr: CA that signs the daemon's certificate");
  app.add_option("--tls-cert", connect.tls_cert_file, "Mutual TLS: client certificate (PEM)");
  app.add_option("--tls-key", connect.tls_key_file, "Mutual TLS: client private key (PEM)");
  app.add_option("--tls-server-name", connect.tls_server_name, "Name expected in the daemon's certificate");
  app.add_option("--token-file", token_file, "Bearer token for --addr (default: $QDCACHE_TOKEN)");

  CompileArgs c;
  CLI::App* compile = app.add_subcommand("compile", "Compile LLVM IR (text or bitcode) or PTX through the cache");
  compile->add_option("file", c.file, "LLVM IR (.ll, .bc) or PTX (.ptx) file")->required();
  AddKernelOptions(compile, c);
  compile->add_option("--fast-key", c.kernel.fast_key_hex,
                      "Client fast key (hex) to alias this artifact");
  compile->add_option("--namespace", c.kernel.ns, "Namespace of the fast key");
  compile->add_option("-o,--output", c.output, "Write the artifact here");
  compile->add_option("--ptx-out", c.ptx_output, "CUDA: write the PTX here");
  compile->add_flag("--no-store", c.no_store, "Compile without reading or writing the cache");
  compile->add_flag("--recache", c.recache, "Compile and overwrite the cached artifact");

  CompileArgs x;
  std::string second_file;
  CLI::App* explain = app.add_subcommand("explain", "Show what goes into the artifact key (two files: what differs)");
  explain->add_option("file", x.file, "LLVM IR file (.ll or .bc)")->required();
  explain->add_option("other", second_file, "A second IR file to compare with");
  AddKernelOptions(explain, x);

  LookupArgs l;
  CLI::App* lookup = app.add_subcommand("lookup", "Fetch artifacts by fast key, without IR (exit 3 on a miss)");
  lookup->add_option("--fast-key", l.fast_keys_hex, "Fast key in hex (repeatable)");
  lookup->add_option("--fast-keys", l.fast_keys_file, "File with one hex fast key per line");
  lookup->add_option("--namespace", l.ns, "Namespace of the fast keys");
  lookup->add_option("--target", l.target, "cuda:sm_XX or cpu:NAME[+feature...]")->required();
  lookup->add_option("-o,--output", l.output, "File (one key) or directory (several keys)");
  lookup->add_flag("--json", l.json,
                   "Print JSON (one key: its result; several: {\"results\": [...]})");

  bool stats_json = false, stats_zero = false;
  CLI::App* stats = app.add_subcommand(
      "stats", "Daemon counters: hits and misses per cache level, compiles, store");
  stats->add_flag("--json", stats_json, "Print one JSON object (every field, and \"levels\")");
  stats->add_flag("--zero,--reset", stats_zero,
                  "Zero the counters, printing them as they were (admin)");

  unsigned ls_limit = 0;
  bool ls_json = false;
  CLI::App* ls = app.add_subcommand("ls", "List stored artifacts, most recently used first");
  ls->add_option("--limit", ls_limit, "At most this many (0 = all)");
  ls->add_flag("--json", ls_json, "Print one JSON object");

  std::string inspect_key, inspect_out;
  bool inspect_json = false;
  CLI::App* inspect = app.add_subcommand("inspect", "Show one stored artifact");
  inspect->add_option("key", inspect_key, "Artifact key (64 hex digits)")->required();
  inspect->add_option("-o,--output", inspect_out, "Write the artifact here");
  inspect->add_flag("--json", inspect_json, "Print one JSON object");

  std::string older_than;
  bool evict_json = false;
  CLI::App* evict = app.add_subcommand("evict", "Evict entries not used for a while");
  evict->add_option("--older-than", older_than, "Duration: 30s, 12h, 7d, 2w")->required();
  evict->add_flag("--json", evict_json, "Print one JSON object");

  std::string trim_size;
  bool trim_json = false;
  CLI::App* trim = app.add_subcommand("trim", "Evict least recently used entries down to a size");
  trim->add_option("--max-size", trim_size, "Size: 512M, 10G")->required();
  trim->add_flag("--json", trim_json, "Print one JSON object");

  bool verify_json = false;
  CLI::App* verify = app.add_subcommand("verify", "Check every stored entry; drop the bad ones");
  verify->add_flag("--json", verify_json, "Print one JSON object");

  ExportArgs ex;
  CLI::App* export_cmd = app.add_subcommand("export", "Write cached artifacts and fast-key aliases to a bundle file");
  export_cmd->add_option("--out", ex.out, "Bundle file to write")->required();
  std::string export_ns;
  CLI::Option* export_ns_option =
      export_cmd->add_option("--namespace", export_ns, "Only this namespace's aliases and the artifacts they name");
  export_cmd->add_option("--since", ex.since, "Only entries used or created within this duration: 12h, 7d");
  export_cmd->add_flag("--all-tenants", ex.all_tenants, "Every tenant's aliases, not only your own (admin)");
  export_cmd->add_flag("--json", ex.json, "Print one JSON object");

  ImportArgs im;
  CLI::App* import_cmd = app.add_subcommand("import", "Store the artifacts and aliases of a bundle file (admin)");
  import_cmd->add_option("file", im.file, "Bundle file written by qdcache export")->required();
  import_cmd->add_flag("--keep-tenants", im.keep_tenants, "Aliases keep the tenants they were exported from");
  import_cmd->add_flag("--json", im.json, "Print one JSON object");

  WarmArgs w;
  CLI::App* warm = app.add_subcommand("warm",
                                      "Compile every kernel of a manifest through the cache (JSON "
                                      "lines: {\"ir\": FILE, \"target\": T, ...})");
  warm->footer(
      "A batch's Compile call has no deadline unless --timeout is given: a cold batch may take "
      "longer than any fixed figure, and the daemon's --compile-timeout bounds each kernel.");
  warm->add_option("manifest", w.manifest, "Manifest file, or - for stdin")->required();
  warm->add_option("--batch", w.batch, "Kernels per call (default 32)")->check(CLI::Range(1, 4096));
  warm->add_option("--jobs,-j", w.jobs, "Calls in flight (default 2)")->check(CLI::Range(1, 64));
  warm->add_flag("--json", w.json, "Print one JSON object");

  bool ping_json = false;
  // Listed for --help only: Main hands `ptxas ...` to RunPtxas before parsing.
  app.add_subcommand("ptxas", "A drop-in for CUDA's ptxas through the cache (qdcache ptxas --help)");
  CLI::App* ping = app.add_subcommand("ping", "Check that the daemon is serving");
  ping->add_flag("--json", ping_json, "Print one JSON object");

  SetJsonOutput(AsksForJson(argc, argv));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e) == 0 ? kExitOk : kExitUsage;
    if (rc != kExitOk) RememberError(InvalidArgument(e.what()));
    return FinishRun(rc);
  }
  SetJsonOutput(app.get_subcommands().front()->count("--json") > 0);
  auto dispatch = [&]() -> int {
    // A malformed manifest is reported before anything connects or is sent.
    std::optional<std::vector<ManifestEntry>> manifest;
    if (*warm) {
      int rc = kExitOk;
      manifest = LoadManifest(w, &rc);
      if (!manifest) return rc;
    }
    connect.timeout = std::chrono::milliseconds(static_cast<long long>(timeout_seconds * 1000));
    w.call_deadline = timeout_option->count() > 0;
    connect.client_name = "qdcache-cli";
    Expected<std::string> token = LoadToken(token_file);
    if (!token.ok()) return PrintError(token.status()), kExitFailure;
    connect.token = std::move(token).value();
    if (spawn_flag->count() > 0) connect.spawn = spawn;
    Expected<std::unique_ptr<client::Client>> client = ConnectCli(connect, /*is_ping=*/bool(*ping));
    if (!client.ok()) return PrintError(client.status()), kExitFailure;

    if (*compile) return RunCompile(**client, c);
    if (*lookup) return RunLookup(**client, l);
    if (*explain) return RunExplain(**client, x, second_file);
    if (*ls) return RunList(**client, ls_limit, ls_json);
    if (*inspect) return RunInspect(**client, inspect_key, inspect_out, inspect_json);
    if (*evict) return RunEvict(**client, older_than, "", evict_json);
    if (*trim) return RunEvict(**client, "", trim_size, trim_json);
    if (*verify) return RunVerify(**client, verify_json);
    if (*stats) return RunStats(**client, stats_json, stats_zero);
    if (*ping) return RunPing(**client, ping_json);
    if (*export_cmd) {
      if (export_ns_option->count() > 0) ex.ns = export_ns;
      return RunExport(**client, ex);
    }
    if (*import_cmd) return RunImport(**client, im);
    if (*warm) return RunWarm(**client, w, *manifest);
    return kExitUsage;
  };
  return FinishRun(dispatch());
}

}  // namespace qdcache::cli
