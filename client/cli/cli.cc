#include "client/cli/cli.h"

#include "common/compile_options.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <optional>
#include <string_view>
#include <vector>

#include "client/cli/commands.h"
#include "client/cli/connect.h"
#include "client/cli/credentials.h"
#include "client/cli/output.h"
#include "client/cli/ptxas.h"
#include "client/cli/usage.h"
#include "client/wire_kind.h"

namespace qdcache::cli {

namespace {

// The options that shape a kernel's compile, shared by compile and explain:
// one flag per row of the option catalogue, then the descriptor's own.
void AddKernelOptions(CLI::App* app, CompileArgs& c, bool target_required = true) {
  KernelOptions& k = c.kernel;
  app->add_option("--target", k.target,
                  "cuda:sm_XX, cpu:NAME[+feature...] or amdgpu:gfxNNN[:feature+|-...] (qdcache targets lists them)")
      ->required(target_required);
  app->add_option("--kind", k.kind,
                  "What the file holds: " + client::SourceKindNames() +
                      " (default: by its extension: .ptx, .nvvm, .cu/.cuh (cuda); anything else LLVM IR)");
  for (const OptionSpec& spec : OptionCatalogue()) {
    const std::string name(spec.name);
    const std::string help = std::string(spec.help);
    if (spec.type == OptionType::kCount) {
      // -O0..-O3 as compilers spell it, beside --opt.
      const std::string flags = name == "opt_level" ? "-O," + std::string(spec.flag) : std::string(spec.flag);
      app->add_option_function<std::uint32_t>(
             flags, [&k, name](const std::uint32_t& v) { k.options[name] = v; },
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

// evict, trim and clear: a sub-command with --dry-run and --json; the caller
// adds what says how much to evict.
CLI::App* AddEvictCommand(CLI::App& app, const std::string& name, const std::string& description, EvictArgs& args) {
  args.command = name;
  CLI::App* command = app.add_subcommand(name, description);
  command->add_flag("--dry-run,-n", args.dry_run, "Only say what would be evicted");
  command->add_flag("--json", args.json, "Print one JSON object");
  return command;
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
  // Global options anywhere on the line: a sub-command hands what it does
  // not know to the app (`qdcache compile k.ll --socket S`).
  app.fallthrough();
  app.set_version_flag("--version", std::string("qdcache ") + QDCACHE_VERSION_STRING);
  client::ClientOptions connect;
  double timeout_seconds = 300;
  app.add_option("--socket", connect.socket_path,
                 "Daemon unix socket (default: $QDCACHE_SOCKET, else $XDG_RUNTIME_DIR/qdcached.sock, else "
                 "/run/qdcached/qdcached.sock when only that one exists)");
  app.add_option("--addr", connect.address, "Daemon TCP address HOST:PORT instead of the socket (default: $QDCACHE_ADDR)");
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
  app.add_option("--tls-ca", connect.tls_ca_file, "TLS to --addr: CA that signs the daemon's certificate ($QDCACHE_TLS_CA)");
  app.add_option("--tls-cert", connect.tls_cert_file, "Mutual TLS: client certificate, PEM ($QDCACHE_TLS_CERT)");
  app.add_option("--tls-key", connect.tls_key_file, "Mutual TLS: client private key, PEM ($QDCACHE_TLS_KEY)");
  app.add_option("--tls-server-name", connect.tls_server_name,
                 "Name expected in the daemon's certificate ($QDCACHE_TLS_SERVER_NAME)");
  app.add_option("--token-file", token_file,
                 "Bearer token for --addr, its first line (default: $QDCACHE_TOKEN, else $QDCACHE_TOKEN_FILE)");

  CompileArgs c;
  CLI::App* compile = app.add_subcommand("compile", "Compile LLVM IR (text or bitcode) or PTX through the cache");
  compile->add_option("file", c.file, "LLVM IR (.ll, .bc), PTX (.ptx), NVVM IR or CUDA C++ file, or - for stdin")
      ->required();
  AddKernelOptions(compile, c);
  compile->add_option("--fast-key", c.kernel.fast_key_hex,
                      "Client fast key, hex (c0ffee01 is 4 bytes), to alias this artifact");
  compile->add_option("--fast-key-text", c.kernel.fast_key_text, "Client fast key given as text: its own UTF-8 bytes");
  compile->add_option("--namespace", c.kernel.ns, "Namespace of the fast key");
  compile->add_option("-o,--output", c.output, "Write the artifact here (- for stdout)");
  compile->add_option("--ptx-out", c.ptx_output, "CUDA: write the PTX here (- for stdout)");
  compile->add_flag("--no-store", c.no_store, "Compile without reading or writing the cache");
  compile->add_flag("--recache", c.recache, "Compile and overwrite the cached artifact");
  compile->add_option("--dep", c.dependency_files,
                      "A file the kernel was made from, kept with its fast key's alias with the file's SHA-256 "
                      "(repeatable; lookup --check-deps treats the alias as stale once one changes)");
  compile->add_option("--alias-policy", c.alias_policy,
                      "When the fast key's alias names a different artifact (a fast-key conflict): rebind "
                      "(default: move it), strict (keep it, warn, exit 1) or off")
      ->check(CLI::IsMember({"rebind", "strict", "off"}));
  compile->add_flag("--explain-miss", c.explain_miss,
                    "On a miss, say what changed since this kernel's earlier artifact");

  CompileArgs x;
  std::string second_file;
  std::vector<std::string> explain_keys;
  CLI::App* explain = app.add_subcommand(
      "explain",
      "Show what goes into the artifact key of a file (two files: what differs), of stored artifacts "
      "(--key, twice: what differs) or of a fast key's alias (--fast-key: what it names, its conflicts)");
  explain->add_option("file", x.file, "LLVM IR file (.ll or .bc), PTX, NVVM IR or CUDA C++");
  explain->add_option("other", second_file, "A second file to compare with");
  AddKernelOptions(explain, x, /*target_required=*/false);
  explain->add_option("--key", explain_keys,
                      "A stored artifact's key, or a unique prefix of 4+ hex digits (twice: compare two)")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  explain->add_option("--fast-key", x.kernel.fast_key_hex, "A fast key (hex): explain its alias");
  explain->add_option("--namespace", x.kernel.ns, "Namespace of --fast-key");

  LookupArgs l;
  CLI::App* lookup = app.add_subcommand("lookup", "Fetch artifacts by fast key, without IR (exit 3 on a miss)");
  lookup->add_option("--fast-key", l.fast_keys_hex, "Fast key in hex (repeatable)");
  lookup->add_option("--fast-key-text", l.fast_keys_text, "Fast key given as text: its own UTF-8 bytes (repeatable)");
  lookup->add_option("--fast-keys", l.fast_keys_file, "File with one hex fast key per line (- for stdin)");
  lookup->add_option("--namespace", l.ns, "Namespace of the fast keys");
  lookup->add_option("--target", l.target, "cuda:sm_XX, cpu:NAME[+feature...] or amdgpu:gfxNNN[:feature+|-...]")
      ->required();
  lookup->add_flag("--check-deps", l.check_deps,
                   "Treat a hit as a miss (exit 3) when a dependency file its compile declared (--dep) has changed");
  lookup->add_option("-o,--output", l.output, "File (one key; - for stdout) or directory (several keys)");
  lookup->add_flag("--json", l.json,
                   "Print JSON (one key: its result; several: {\"results\": [...]})");

  bool stats_json = false, stats_zero = false;
  CLI::App* stats = app.add_subcommand(
      "stats", "Daemon counters: hits and misses per cache level, compiles, store");
  stats->add_flag("--json", stats_json, "Print one JSON object (every field, and \"levels\")");
  stats->add_flag("--zero,--reset", stats_zero,
                  "Zero the counters, printing them as they were (admin)");

  ListArgs ls_args;
  std::string ls_ns;
  CLI::App* ls = app.add_subcommand("ls", "List stored artifacts, most recently used first (or your aliases)");
  ls->add_option("--limit", ls_args.limit, "At most this many (0 = all)");
  ls->add_option("--target", ls_args.target, "Only this target's (cuda:sm_90, cpu:x86-64...)");
  CLI::Option* ls_ns_option =
      ls->add_option("--namespace", ls_ns, "Only the artifacts your aliases in this namespace name");
  ls->add_flag("--aliases", ls_args.aliases, "List your fast-key aliases instead of artifacts");
  ls->add_flag("--json", ls_args.json, "Print one JSON object");

  std::string inspect_key, inspect_out;
  bool inspect_json = false;
  CLI::App* inspect = app.add_subcommand("inspect", "Show one stored artifact");
  inspect->add_option("key", inspect_key, "Artifact key: 64 hex digits, or a unique prefix of 4 or more")->required();
  inspect->add_option("-o,--output", inspect_out, "Write the artifact here (- for stdout)");
  inspect->add_flag("--json", inspect_json, "Print one JSON object");

  EvictArgs evict_args;
  CLI::App* evict = AddEvictCommand(app, "evict", "Evict entries not used for a while (admin)", evict_args);
  evict->add_option("--older-than", evict_args.older_than, "Duration: 30s, 12h, 7d, 2w")->required();
  EvictArgs trim_args;
  CLI::App* trim =
      AddEvictCommand(app, "trim", "Evict least recently used entries down to a size (admin)", trim_args);
  trim->add_option("--max-size", trim_args.max_size, "Size: 512M, 10G (a unit is required)")->required();
  EvictArgs clear_args;
  CLI::App* clear = AddEvictCommand(app, "clear", "Evict every artifact and stage output (admin)", clear_args);

  bool shutdown_json = false;
  CLI::App* shutdown = app.add_subcommand(
      "shutdown", "Stop the daemon: it finishes the calls in flight, then exits (admin; the owner of a per-user daemon is)");
  shutdown->add_flag("--json", shutdown_json, "Print one JSON object");

  bool targets_json = false;
  CLI::App* targets = app.add_subcommand("targets", "List the targets the daemon compiles for, with CPUs and features");
  targets->add_flag("--json", targets_json, "Print one JSON object");

  std::string completion_shell;
  CLI::App* completion = app.add_subcommand("completion", "Print a shell completion script: qdcache completion bash");
  completion->add_option("shell", completion_shell, "bash")->required()->check(CLI::IsMember({"bash"}));

  bool verify_json = false;
  CLI::App* verify = app.add_subcommand("verify", "Check every stored entry; drop the bad ones");
  verify->add_flag("--json", verify_json, "Print one JSON object");

  ExportArgs ex;
  CLI::App* export_cmd = app.add_subcommand("export", "Write cached artifacts and fast-key aliases to a bundle file");
  export_cmd->add_option("--out", ex.out, "Bundle file to write (- for stdout)")->required();
  std::string export_ns;
  CLI::Option* export_ns_option =
      export_cmd->add_option("--namespace", export_ns, "Only this namespace's aliases and the artifacts they name");
  export_cmd->add_option("--since", ex.since, "Only entries used or created within this duration: 12h, 7d");
  export_cmd->add_flag("--all-tenants", ex.all_tenants, "Every tenant's aliases, not only your own (admin)");
  export_cmd->add_option("--sign", ex.sign_key,
                         "Sign every entry with this Ed25519 private key (qdcache keygen), so daemons that "
                         "trust its public key import it");
  export_cmd->add_flag("--json", ex.json, "Print one JSON object");

  ImportArgs im;
  CLI::App* import_cmd = app.add_subcommand(
      "import", "Store the artifacts and aliases of a bundle file (admin; write where the daemon checks signatures)");
  import_cmd->add_option("file", im.file, "Bundle file written by qdcache export, or - for stdin")->required();
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

  std::string keygen_path;
  bool keygen_json = false;
  CLI::App* keygen = app.add_subcommand(
      "keygen", "Make an Ed25519 key pair that signs shared entries: FILE (private, mode 600) and FILE.pub");
  keygen->add_option("file", keygen_path, "Private key file to create (it must not exist)")->required();
  keygen->add_flag("--json", keygen_json, "Print one JSON object");

  bool ping_json = false;
  // Listed for --help only: Main hands `ptxas ...` to RunPtxas before parsing.
  app.add_subcommand("ptxas", "A drop-in for CUDA's ptxas through the cache (qdcache ptxas --help)");
  CLI::App* ping = app.add_subcommand("ping", "Check that the daemon is serving");
  ping->add_flag("--json", ping_json, "Print one JSON object");

  SetJsonOutput(AsksForJson(argc, argv));
  if (std::optional<std::string> unknown = UnknownCommand(app, {argv + std::min(argc, 1), argv + argc})) {
    PrintError(InvalidArgument(*unknown));
    return FinishRun(kExitUsage);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return FinishRun(app.exit(e));  // --help, --version
  } catch (const CLI::ParseError& e) {
    PrintError(InvalidArgument(UsageMessage(app, e)));
    return FinishRun(kExitUsage);
  }
  const CLI::Option* json_flag = app.get_subcommands().front()->get_option_no_throw("--json");
  SetJsonOutput(json_flag != nullptr && json_flag->count() > 0);
  if (*completion) {
    std::fputs(BashCompletion(app, "qdcache").c_str(), stdout);
    return kExitOk;
  }
  if (*keygen) return FinishRun(RunKeygen(keygen_path, keygen_json));
  if (c.output == "-" && c.ptx_output == "-") {
    PrintError(InvalidArgument("-o - and --ptx-out - both write to stdout: name a file for one of them"));
    return FinishRun(kExitUsage);
  }
  for (const auto& [output, json] : {std::pair{c.output, c.json}, std::pair{c.ptx_output, c.json},
                                     std::pair{l.output, l.json}, std::pair{inspect_out, inspect_json},
                                     std::pair{ex.out, ex.json}}) {
    if (output == "-" && json) {
      PrintError(InvalidArgument("--json and an output of - both write to stdout: name a file, or drop --json"));
      return FinishRun(kExitUsage);
    }
  }
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
    if (*explain) {
      if (!explain_keys.empty() || !x.kernel.fast_key_hex.empty()) {
        if (!x.file.empty()) {
          return PrintError(InvalidArgument("explain takes a file, or --key / --fast-key, not both")), kExitUsage;
        }
        return RunExplainStored(**client, explain_keys, x.kernel, x.json);
      }
      if (x.file.empty() || x.kernel.target.empty()) {
        return PrintError(InvalidArgument("explain needs a file and --target, or --key KEY, or --fast-key KEY "
                                          "--target T")),
               kExitUsage;
      }
      return RunExplain(**client, x, second_file);
    }
    if (*ls) {
      if (ls_ns_option->count() > 0) ls_args.ns = ls_ns;
      return RunList(**client, ls_args);
    }
    if (*inspect) return RunInspect(**client, inspect_key, inspect_out, inspect_json);
    if (*evict) return RunEvict(**client, evict_args);
    if (*trim) return RunEvict(**client, trim_args);
    if (*clear) return RunEvict(**client, clear_args);
    if (*shutdown) return RunShutdown(**client, shutdown_json);
    if (*targets) return RunTargets(**client, targets_json);
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
