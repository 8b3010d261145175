#include "daemon/daemon_options.h"

#include <CLI/CLI.hpp>
#include <cctype>
#include <cstdlib>
#include <memory>
#include <thread>

#include "common/paths.h"
#include "daemon/config_file.h"
#include "daemon/config_print.h"
#include "daemon/daemon_settings.h"
#include "daemon/setting.h"
#include "daemon/version.h"

namespace qdcache::daemon {
namespace {

constexpr char kFooter[] =
    "Every option except --ready-fd, --config and --print-config[-reference] is also an environment variable,\n"
    "QDCACHED_ and its name in upper snake case (QDCACHED_MAX_SIZE), and a key of the config file\n"
    "(max-size = \"10G\"). Precedence: flag > environment > config file > default.";

std::optional<std::string> ProcessEnv(const std::string& name) {
  const char* value = std::getenv(name.c_str());
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

// The config file's values, applied to `o`. A named file (flag, then
// environment) must exist; the default one is read only if it does.
Status ApplyConfigFile(const std::optional<std::string>& flag_path, const ConfigSources& sources,
                       const std::vector<Setting>& settings, DaemonOptions& o) {
  std::string path = sources.default_config_path;
  std::string named_by;
  if (flag_path) {
    path = *flag_path;
    named_by = "--config";
  } else if (std::optional<std::string> env = sources.getenv("QDCACHED_CONFIG"); env && !env->empty()) {
    path = *env;
    named_by = "QDCACHED_CONFIG";
  }
  Expected<std::vector<ConfigValue>> values = ReadConfigFile(path, settings);
  if (!values.ok()) {
    if (values.status().code() == Code::kNotFound && named_by.empty()) return Status::Ok();
    // Errors in the file name the file; a missing or unreadable one says who named it.
    const std::string& message = values.status().message();
    const bool in_file = values.status().code() == Code::kInvalidArgument;
    return InvalidArgument(in_file || named_by.empty() ? message : named_by + ": " + message);
  }
  for (const ConfigValue& v : *values) {
    Status applied = v.setting->apply(v.text, o);
    if (!applied.ok()) return InvalidArgument(v.where + ": " + v.setting->name + ": " + applied.message());
  }
  return Status::Ok();
}

Status ApplyEnvironment(const ConfigSources& sources, const std::vector<Setting>& settings, DaemonOptions& o) {
  for (const Setting& s : settings) {
    if (!s.configurable) continue;
    const std::string name = EnvName(s.name);
    std::optional<std::string> value = sources.getenv(name);
    if (!value || value->empty()) continue;
    Status applied = s.apply(*value, o);
    if (!applied.ok()) return InvalidArgument(name + ": " + applied.message());
  }
  return Status::Ok();
}

// A setting's --help line: what it does, its default and its variable.
std::string HelpLine(const Setting& s, const DaemonOptions& defaults) {
  std::string line = s.help;
  std::vector<std::string> notes;
  const std::string value = s.secret || !s.show ? std::string() : s.show(defaults);
  if (!value.empty()) notes.push_back("default: " + value);
  if (s.configurable) notes.push_back("env " + EnvName(s.name));
  for (std::size_t i = 0; i < notes.size(); ++i) line += (i == 0 ? " [" : "; ") + notes[i];
  return notes.empty() ? line : line + "]";
}

}  // namespace

Expected<DaemonOptions> ParseDaemonFlags(int argc, const char* const* argv, const ConfigSources& given) {
  ConfigSources sources = given;
  if (!sources.getenv) sources.getenv = ProcessEnv;
  const std::vector<Setting>& settings = DaemonSettings();
  CLI::App app{"qdcached: out-of-process compile daemon and cache for GPU/CPU kernels"};
  app.set_version_flag("--version", std::string("qdcached ") + kVersion);
  app.footer(kFooter);
  std::vector<std::string> text(settings.size());
  std::unique_ptr<bool[]> switches(new bool[settings.size()]());
  std::vector<CLI::Option*> flags;
  const DaemonOptions defaults;
  for (std::size_t i = 0; i < settings.size(); ++i) {
    const Setting& s = settings[i];
    const std::string help = HelpLine(s, defaults);
    if (s.kind == ValueKind::kBool) {
      flags.push_back(app.add_flag("--" + s.name, switches[i], help));
    } else {
      CLI::Option* option = app.add_option("--" + s.name, text[i], help);
      std::string type(KindName(s.kind));
      for (char& c : type) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      option->type_name(type);
      flags.push_back(option);
    }
  }
  std::string config_path;
  CLI::Option* config = app.add_option(
      "--config", config_path,
      "Config file, TOML (default: $QDCACHED_CONFIG, else /etc/qdcached/qdcached.toml if it exists)");
  bool print_config = false;
  app.add_flag("--print-config", print_config, "Print the effective configuration as a TOML config file and exit");
  bool print_reference = false;
  app.add_flag("--print-config-reference", print_reference,
               "Print every setting with its environment variable and default as a Markdown table and exit");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    return Status(Code::kCancelled, app.help());
  } catch (const CLI::CallForVersion&) {
    return Status(Code::kCancelled, std::string("qdcached ") + kVersion + "\n");
  } catch (const CLI::ParseError& e) {
    return InvalidArgument(e.what());
  }
  if (print_reference) return Status(Code::kCancelled, RenderConfigReference(settings, DaemonOptions{}));
  DaemonOptions o;
  const std::optional<std::string> config_flag =
      config->count() > 0 ? std::optional<std::string>(config_path) : std::nullopt;
  QDC_RETURN_IF_ERROR(ApplyConfigFile(config_flag, sources, settings, o));
  QDC_RETURN_IF_ERROR(ApplyEnvironment(sources, settings, o));
  for (std::size_t i = 0; i < settings.size(); ++i) {
    if (flags[i]->count() == 0) continue;
    const Setting& s = settings[i];
    Status applied = s.apply(s.kind == ValueKind::kBool ? (switches[i] ? "true" : "false") : text[i], o);
    if (!applied.ok()) return InvalidArgument("--" + s.name + ": " + applied.message());
  }
  if (o.remote_url.empty() && (o.remote_read_only || !o.remote_user.empty() || !o.remote_password_file.empty())) {
    return InvalidArgument("--remote-read-only, --remote-user and --remote-password-file need --remote");
  }
  if (o.remote_url.empty() && (o.remote_max_share_bytes != defaults.remote_max_share_bytes ||
                               o.remote_min_share_compile != defaults.remote_min_share_compile ||
                               o.remote_backfill != defaults.remote_backfill ||
                               o.remote_lease != defaults.remote_lease)) {
    return InvalidArgument("--remote-max-share-size, --remote-min-share-compile, --remote-backfill and "
                           "--remote-lease need --remote");
  }
  // A lease is renewed every third of its time, by a call that may take
  // --remote-timeout: shorter, and it would expire under a running compile.
  const std::chrono::milliseconds shortest_lease = std::max<std::chrono::milliseconds>(
      std::chrono::milliseconds(300), 3 * o.remote_timeout);
  if (o.remote_lease.count() != 0 && o.remote_lease < shortest_lease) {
    return InvalidArgument("--remote-lease " + std::to_string(o.remote_lease.count()) +
                           "ms is too short to be renewed in time (at least " +
                           std::to_string(shortest_lease.count()) +
                           "ms: 300ms and three --remote-timeout; or 0 for no leases)");
  }
  if (o.remote_url.empty() && !o.remote_signing_key.empty()) {
    return InvalidArgument("--remote-signing-key needs --remote: it signs what is written there");
  }
  if (o.remote_trusted_keys.empty() && o.remote_require_signatures != defaults.remote_require_signatures) {
    return InvalidArgument("--remote-require-signatures needs --remote-trusted-keys: without them nothing is checked");
  }
  if (print_config) return Status(Code::kCancelled, RenderConfig(settings, o));
  return o;
}

DaemonOptions WithDefaults(DaemonOptions o) {
  if (o.socket_path.empty()) o.socket_path = DefaultSocketPath();
  if (o.store_dir.empty()) o.store_dir = DefaultStoreDir();
  if (o.workers == 0) o.workers = std::max(1u, std::thread::hardware_concurrency());
  return o;
}

}  // namespace qdcache::daemon
