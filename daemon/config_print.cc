#include "daemon/config_print.h"

#include <cstdio>
#include <string_view>


namespace qdcache::daemon {
namespace {

constexpr char kHeader[] =
    "# qdcached configuration (TOML), as printed by `qdcached --print-config`.\n"
    "#\n"
    "# Every key is the long name of a command-line flag (kebab-case: max-size is\n"
    "# --max-size) and also an environment variable, QDCACHED_ and the name in upper\n"
    "# snake case (QDCACHED_MAX_SIZE). Precedence: flag > environment > this file >\n"
    "# built-in default. Unknown keys are an error.\n"
    "#\n"
    "# The daemon reads /etc/qdcached/qdcached.toml if it exists, or the file named\n"
    "# by --config or QDCACHED_CONFIG. Sizes take K/M/G/T suffixes (binary: 1K =\n"
    "# 1024), durations s/m/h/d/w; an integer is bytes or seconds. Files holding\n"
    "# secrets are given by path; their contents never appear here.\n";

std::string TomlValue(const Setting& s, const std::string& text) {
  switch (s.kind) {
    case ValueKind::kBool:
    case ValueKind::kInteger: return text;
    default: return TomlString(text);
  }
}

// `text` inside a Markdown table cell: pipes escaped, so `a|b` stays one cell.
std::string Cell(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

std::string TomlString(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20 || u == 0x7f) {
      char esc[8];
      std::snprintf(esc, sizeof esc, "\\u%04x", u);
      out += esc;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string RenderConfig(const std::vector<Setting>& settings, const DaemonOptions& options) {
  std::string out = kHeader;
  for (const Setting& s : settings) {
    if (!s.configurable) continue;
    out += "\n# " + s.help + "\n";
    if (s.secret) {
      const bool set = !s.show(options).empty();
      out += "# " + s.name + " = (" + (set ? "set" : "not set") + ", not shown; see " + EnvName(s.name) + ")\n";
    } else {
      out += s.name + " = " + TomlValue(s, s.show(options)) + "\n";
    }
  }
  return out;
}

std::string RenderConfigReference(const std::vector<Setting>& settings, const DaemonOptions& defaults) {
  std::string out =
      "| flag | environment variable | kind | default | what |\n"
      "|---|---|---|---|---|\n";
  for (const Setting& s : settings) {
    const std::string value = s.secret ? std::string() : s.show(defaults);
    out += "| `--" + s.name + "` | " + (s.configurable ? "`" + EnvName(s.name) + "`" : "(flag only)") + " | " +
           std::string(KindName(s.kind)) + " | " + (value.empty() ? "" : "`" + Cell(value) + "`") + " | " +
           Cell(s.help) + " |\n";
  }
  return out;
}

}  // namespace qdcache::daemon
