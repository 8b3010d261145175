#include "client/cli/manifest.h"

#include <nlohmann/json.hpp>

#include "client/cli/kernel_options.h"
#include "client/cli/output.h"
#include "common/compile_options.h"

namespace qdcache::cli {
namespace {

using nlohmann::json;

// Keys of a line besides the compile options (which are the catalogue's).
std::string KnownKeys() {
  return "ir, kind, target, entries, fast_key, fast_key_text, namespace, key_extras, " + OptionNames();
}

Status WrongType(const std::string& key, const char* what) {
  return InvalidArgument("\"" + key + "\" must be " + what);
}

Expected<std::string> String(const json& v, const std::string& key) {
  if (!v.is_string()) return WrongType(key, "a string");
  return v.get<std::string>();
}

Expected<bool> Bool(const json& v, const std::string& key) {
  if (!v.is_boolean()) return WrongType(key, "true or false");
  return v.get<bool>();
}

// A compile option's value: a number for a count, true/false for a bool.
// "no_<option>": true turns an option that is on by default off ("no_fmad").
Status ParseOption(const json& v, const std::string& key, KernelOptions* o) {
  const bool negated = key.rfind("no_", 0) == 0 && FindOption(key) == nullptr;
  const OptionSpec* spec = FindOption(negated ? key.substr(3) : key);
  if (spec == nullptr) return NotFound(key);
  if (spec->type == OptionType::kBool || negated) {
    if (negated && (spec->type != OptionType::kBool || spec->default_value == 0)) return NotFound(key);
    QDC_ASSIGN_OR_RETURN(bool on, Bool(v, key));
    o->options[std::string(spec->name)] = on != negated ? 1 : 0;
    return Status::Ok();
  }
  const std::string range = "an integer " + std::to_string(spec->min) + "-" + std::to_string(spec->max);
  if (!v.is_number_integer()) return WrongType(key, range.c_str());
  const std::int64_t n = v.get<std::int64_t>();
  if (n < spec->min || n > spec->max) return WrongType(key, range.c_str());
  o->options[std::string(spec->name)] = static_cast<std::uint32_t>(n);
  return Status::Ok();
}

// One descriptor line, parsed into `entry`.
Status ParseLine(std::string_view line, const std::filesystem::path& base_dir,
                 ManifestEntry* entry) {
  json j;
  try {
    j = json::parse(line);
  } catch (const json::parse_error& e) {
    std::string why = e.what();
    if (const std::size_t at = why.find("] "); at != std::string::npos) why = why.substr(at + 2);
    return InvalidArgument("not JSON: " + why);
  }
  if (!j.is_object()) return InvalidArgument("not a JSON object");
  KernelOptions o;
  bool have_ir = false, have_target = false;
  for (const auto& [key, value] : j.items()) {
    if (key == "ir") {
      QDC_ASSIGN_OR_RETURN(std::string ir, String(value, key));
      if (ir.empty()) return InvalidArgument("\"ir\" is empty");
      const std::filesystem::path path(ir);
      entry->ir_path = path.is_absolute() ? ir : (base_dir / path).lexically_normal().string();
      have_ir = true;
    } else if (key == "kind") {
      QDC_ASSIGN_OR_RETURN(o.kind, String(value, key));
    } else if (key == "target") {
      QDC_ASSIGN_OR_RETURN(o.target, String(value, key));
      have_target = true;
    } else if (key == "entries") {
      if (!value.is_array()) return WrongType(key, "an array of strings");
      for (const json& e : value) {
        if (!e.is_string()) return WrongType(key, "an array of strings");
        o.entries.push_back(e.get<std::string>());
      }
    } else if (key == "fast_key") {
      QDC_ASSIGN_OR_RETURN(o.fast_key_hex, String(value, key));
      if (o.fast_key_hex.empty()) return InvalidArgument("\"fast_key\" is empty");
    } else if (key == "fast_key_text") {
      QDC_ASSIGN_OR_RETURN(o.fast_key_text, String(value, key));
      if (o.fast_key_text.empty()) return InvalidArgument("\"fast_key_text\" is empty");
    } else if (key == "namespace") {
      QDC_ASSIGN_OR_RETURN(o.ns, String(value, key));
    } else if (key == "key_extras") {
      if (!value.is_object()) return WrongType(key, "an object of strings");
      for (const auto& [name, v] : value.items()) {
        if (!v.is_string()) return WrongType(key + "." + name, "a string");
        o.key_extras[name] = v.get<std::string>();
      }
    } else if (Status s = ParseOption(value, key, &o); !s.ok()) {
      if (s.code() != Code::kNotFound) return s;
      return InvalidArgument("unknown key \"" + key + "\" (known: " + KnownKeys() + ")");
    }
  }
  if (!have_ir) return InvalidArgument("\"ir\" is missing");
  if (!have_target) return InvalidArgument("\"target\" is missing");
  entry->target = o.target;
  QDC_ASSIGN_OR_RETURN(entry->descriptor, DescriptorWithoutIr(o, entry->ir_path));
  return Status::Ok();
}

}  // namespace

Expected<std::vector<ManifestEntry>> ParseManifest(std::string_view text, const std::string& name,
                                                   const std::filesystem::path& base_dir) {
  std::vector<ManifestEntry> entries;
  int number = 0;
  while (!text.empty()) {
    const std::size_t eol = text.find('\n');
    const std::string_view line = Trimmed(text.substr(0, eol));
    text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
    ++number;
    if (line.empty() || line.front() == '#') continue;
    ManifestEntry entry;
    entry.line = number;
    if (Status s = ParseLine(line, base_dir, &entry); !s.ok()) {
      return s.WithContext(name + ":" + std::to_string(number));
    }
    entries.push_back(std::move(entry));
  }
  return entries;
}

}  // namespace qdcache::cli
