#include "client/cli/manifest.h"

#include <nlohmann/json.hpp>

#include "client/cli/kernel_options.h"
#include "client/cli/output.h"

namespace qdcache::cli {
namespace {

using nlohmann::json;

constexpr const char* kKnownKeys =
    "ir, target, opt, entries, fast_key, namespace, fast_math, no_fmad, debug, lineinfo, "
    "max_registers, "
    "link_libdevice, key_extras";

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

Expected<int> IntIn(const json& v, const std::string& key, int low, int high) {
  const std::string range = "an integer " + std::to_string(low) + "-" + std::to_string(high);
  if (!v.is_number_integer()) return WrongType(key, range.c_str());
  const std::int64_t n = v.get<std::int64_t>();
  if (n < low || n > high) return WrongType(key, range.c_str());
  return static_cast<int>(n);
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
    } else if (key == "target") {
      QDC_ASSIGN_OR_RETURN(o.target, String(value, key));
      have_target = true;
    } else if (key == "opt") {
      QDC_ASSIGN_OR_RETURN(o.opt_level, IntIn(value, key, 0, 3));
    } else if (key == "entries") {
      if (!value.is_array()) return WrongType(key, "an array of strings");
      for (const json& e : value) {
        if (!e.is_string()) return WrongType(key, "an array of strings");
        o.entries.push_back(e.get<std::string>());
      }
    } else if (key == "fast_key") {
      QDC_ASSIGN_OR_RETURN(o.fast_key_hex, String(value, key));
      if (o.fast_key_hex.empty()) return InvalidArgument("\"fast_key\" is empty");
    } else if (key == "namespace") {
      QDC_ASSIGN_OR_RETURN(o.ns, String(value, key));
    } else if (key == "fast_math") {
      QDC_ASSIGN_OR_RETURN(o.fast_math, Bool(value, key));
    } else if (key == "no_fmad") {
      QDC_ASSIGN_OR_RETURN(o.no_fmad, Bool(value, key));
    } else if (key == "debug") {
      QDC_ASSIGN_OR_RETURN(o.debug, Bool(value, key));
    } else if (key == "lineinfo") {
      QDC_ASSIGN_OR_RETURN(o.lineinfo, Bool(value, key));
    } else if (key == "max_registers") {
      QDC_ASSIGN_OR_RETURN(o.max_registers, IntIn(value, key, 0, 255));
    } else if (key == "link_libdevice") {
      QDC_ASSIGN_OR_RETURN(o.link_libdevice, Bool(value, key));
    } else if (key == "key_extras") {
      if (!value.is_object()) return WrongType(key, "an object of strings");
      for (const auto& [name, v] : value.items()) {
        if (!v.is_string()) return WrongType(key + "." + name, "a string");
        o.key_extras[name] = v.get<std::string>();
      }
    } else {
      return InvalidArgument("unknown key \"" + key + "\" (known: " + kKnownKeys + ")");
    }
  }
  if (!have_ir) return InvalidArgument("\"ir\" is missing");
  if (!have_target) return InvalidArgument("\"target\" is missing");
  entry->target = o.target;
  QDC_ASSIGN_OR_RETURN(entry->descriptor, DescriptorWithoutIr(o));
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
