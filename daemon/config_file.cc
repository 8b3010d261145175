#include "daemon/config_file.h"

#include <toml++/toml.h>  // the packaged library, built with exceptions: caught below

#include "common/file_read.h"

namespace qdcache::daemon {
namespace {

constexpr std::size_t kMaxConfigBytes = 1 << 20;

std::string_view TypeName(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::table: return "a table";
    case toml::node_type::array: return "an array";
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a floating-point number";
    case toml::node_type::boolean: return "a boolean";
    case toml::node_type::date:
    case toml::node_type::time:
    case toml::node_type::date_time: return "a date/time";
    default: return "nothing";
  }
}

std::string_view ExpectedForm(ValueKind kind) {
  switch (kind) {
    case ValueKind::kString: return "a string";
    case ValueKind::kBool: return "true or false";
    case ValueKind::kInteger: return "an integer";
    case ValueKind::kSize: return "a size string like \"10G\" or an integer (bytes)";
    case ValueKind::kDuration: return "a duration string like \"10m\" or an integer (seconds)";
  }
  return "?";
}

// The node as the text Setting::apply reads, or nullopt if the kind does not allow its TOML type.
std::optional<std::string> AsText(const toml::node& node, ValueKind kind) {
  const bool text_ok = kind == ValueKind::kString || kind == ValueKind::kSize || kind == ValueKind::kDuration;
  const bool integer_ok = kind == ValueKind::kInteger || kind == ValueKind::kSize || kind == ValueKind::kDuration;
  if (const auto* s = node.as_string(); s && text_ok) return s->get();
  if (const auto* i = node.as_integer(); i && integer_ok) {
    // A TOML integer size is bytes, as documented: spelt so for the setting,
    // which refuses a bare number from a flag.
    return std::to_string(i->get()) + (kind == ValueKind::kSize ? "B" : "");
  }
  if (const auto* b = node.as_boolean(); b && kind == ValueKind::kBool) return b->get() ? "true" : "false";
  return std::nullopt;
}

const Setting* Find(const std::vector<Setting>& settings, std::string_view name) {
  for (const Setting& s : settings) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

Status UnknownKey(const std::string& where, std::string_view key, const std::vector<Setting>& settings) {
  std::string kebab(key);
  for (char& c : kebab) c = c == '_' ? '-' : c;
  const Setting* near = Find(settings, kebab);
  return InvalidArgument(where + ": unknown key \"" + std::string(key) + "\"" +
                         (near && near->configurable ? " (did you mean \"" + kebab + "\"?)" : ""));
}

}  // namespace

Expected<std::vector<ConfigValue>> ReadConfigFile(const std::string& path, const std::vector<Setting>& settings) {
  QDC_ASSIGN_OR_RETURN(std::string content, ReadSmallFile(path, "config file " + path, kMaxConfigBytes));
  toml::table table;
  try {
    table = toml::parse(content, path);
  } catch (const toml::parse_error& e) {
    return InvalidArgument(path + ":" + std::to_string(e.source().begin.line) + ":" +
                           std::to_string(e.source().begin.column) + ": " + std::string(e.description()));
  }
  std::vector<ConfigValue> values;
  for (const auto& [key, node] : table) {
    const std::string where = path + ":" + std::to_string(key.source().begin.line);
    const Setting* setting = Find(settings, key.str());
    if (setting == nullptr) return UnknownKey(where, key.str(), settings);
    if (!setting->configurable) {
      return InvalidArgument(where + ": " + setting->name + " is a command-line flag only");
    }
    std::optional<std::string> text = AsText(node, setting->kind);
    if (!text) {
      return InvalidArgument(where + ": " + setting->name + ": expected " + std::string(ExpectedForm(setting->kind)) +
                             ", got " + std::string(TypeName(node)));
    }
    values.push_back({setting, std::move(*text), where});
  }
  return values;
}

}  // namespace qdcache::daemon
