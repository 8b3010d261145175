#include "client/cli/cli.h"

#include <CLI/CLI.hpp>

#include "client/cli/commands.h"
#include "client/cli/output.h"

namespace qdcache::cli {

int Main(int argc, const char* const* argv) {
  CLI::App app{"qdcache: client of the qdcached compile cache"};
  app.require_subcommand(1);
  client::ClientOptions connect;
  double timeout_seconds = 300;
  app.add_option("--socket", connect.socket_path, "Daemon unix socket (default: $XDG_RUNTIME_DIR/qdcached.sock)");
  app.add_option("--addr", connect.address, "Daemon TCP address HOST:PORT (instead of the socket)");
  app.add_option("--timeout", timeout_seconds, "Deadline per call, seconds")->check(CLI::PositiveNumber);

  CompileArgs c;
  CLI::App* compile = app.add_subcommand("compile", "Compile LLVM IR (text or bitcode) through the cache");
  compile->add_option("file", c.file, "LLVM IR file (.ll or .bc)")->required();
  compile->add_option("--target", c.target, "cuda:sm_XX or cpu:NAME[+feature...]")->required();
  compile->add_option("--opt", c.opt_level, "Optimization level 0-3 (default 3)")->check(CLI::Range(0, 3));
  compile->add_option("--entry", c.entries, "Entry point that must exist (repeatable)");
  compile->add_option("--fast-key", c.fast_key_hex, "Client fast key (hex) to alias this artifact");
  compile->add_option("--namespace", c.ns, "Namespace of the fast key");
  compile->add_option("-o,--output", c.output, "Write the artifact here");
  compile->add_option("--ptx-out", c.ptx_output, "CUDA: write the PTX here");
  compile->add_flag("--json", c.json, "Print one JSON object");
  compile->add_flag("--fast-math", c.fast_math, "Unsafe floating-point math (ftz on CUDA)");
  compile->add_flag("--no-fmad", c.no_fmad, "Do not contract into fused multiply-add");
  compile->add_flag("--debug", c.debug, "Keep debug information");
  compile->add_flag("--lineinfo", c.lineinfo, "CUDA: line information");
  compile->add_option("--max-registers", c.max_registers, "CUDA: register limit per thread")->check(CLI::Range(0, 255));
  compile->add_flag("--link-libdevice", c.link_libdevice, "CUDA: link libdevice");
  compile->add_flag("--no-store", c.no_store, "Compile without reading or writing the cache");
  compile->add_flag("--recache", c.recache, "Compile and overwrite the cached artifact");
  compile->add_option("--key-extra", c.key_extras, "NAME=VALUE folded into the key (repeatable)");

  LookupArgs l;
  CLI::App* lookup = app.add_subcommand("lookup", "Fetch artifacts by fast key, without IR (exit 3 on a miss)");
  lookup->add_option("--fast-key", l.fast_keys_hex, "Fast key in hex (repeatable)")->required();
  lookup->add_option("--namespace", l.ns, "Namespace of the fast keys");
  lookup->add_option("--target", l.target, "cuda:sm_XX or cpu:NAME[+feature...]")->required();
  lookup->add_option("-o,--output", l.output, "File (one key) or directory (several keys)");
  lookup->add_flag("--json", l.json, "Print JSON (one object per key)");

  bool stats_json = false;
  CLI::App* stats = app.add_subcommand("stats", "Daemon counters");
  stats->add_flag("--json", stats_json, "Print one JSON object");

  bool ping_json = false;
  CLI::App* ping = app.add_subcommand("ping", "Check that the daemon is serving");
  ping->add_flag("--json", ping_json, "Print one JSON object");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kExitOk : kExitUsage;
  }
  connect.timeout = std::chrono::milliseconds(static_cast<long long>(timeout_seconds * 1000));
  connect.client_name = "qdcache-cli";
  Expected<std::unique_ptr<client::Client>> client = client::Client::Connect(connect);
  if (!client.ok()) return PrintError(client.status()), kExitFailure;

  if (*compile) return RunCompile(**client, c);
  if (*lookup) return RunLookup(**client, l);
  if (*stats) return RunStats(**client, stats_json);
  if (*ping) return RunPing(**client, ping_json);
  return kExitUsage;
}

}  // namespace qdcache::cli
