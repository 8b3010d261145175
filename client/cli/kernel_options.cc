#include "client/cli/kernel_options.h"

#include "client/wire_target.h"
#include "common/digest.h"

namespace qdcache::cli {

Expected<std::string> DecodeFastKey(const std::string& hex) {
  std::string bytes;
  if (hex.empty() || !FromHex(hex, &bytes)) {
    return InvalidArgument("fast key \"" + hex + "\" is not an even-length hex string");
  }
  return bytes;
}

Status ParseKeyExtras(const std::vector<std::string>& name_values,
                      std::map<std::string, std::string>* key_extras) {
  for (const std::string& kv : name_values) {
    const std::size_t eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) {
      return InvalidArgument("--key-extra \"" + kv + "\" is not NAME=VALUE");
    }
    (*key_extras)[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  return Status::Ok();
}

Expected<v1::KernelDescriptor> DescriptorWithoutIr(const KernelOptions& a) {
  v1::KernelDescriptor d;
  QDC_ASSIGN_OR_RETURN(*d.mutable_target(), client::ParseWireTarget(a.target));
  if (a.opt_level > 3)
    return InvalidArgument("opt level " + std::to_string(a.opt_level) + " is not 0-3");
  if (a.max_registers > 255) {
    return InvalidArgument("max registers " + std::to_string(a.max_registers) + " is not 0-255");
  }
  v1::CompileOptions* o = d.mutable_options();
  if (a.opt_level >= 0) o->set_opt_level(static_cast<std::uint32_t>(a.opt_level));
  if (a.fast_math) o->set_fast_math(true);
  if (a.no_fmad) o->set_fmad(false);
  if (a.debug) o->set_debug(true);
  if (a.lineinfo) o->set_lineinfo(true);
  if (a.max_registers >= 0) o->set_max_registers(static_cast<std::uint32_t>(a.max_registers));
  if (a.link_libdevice) o->set_link_libdevice(true);
  for (const std::string& e : a.entries) d.add_entry_points(e);
  if (!a.fast_key_hex.empty()) {
    QDC_ASSIGN_OR_RETURN(*d.mutable_fast_key(), DecodeFastKey(a.fast_key_hex));
    d.set_namespace_(a.ns);
  } else if (!a.ns.empty()) {
    return InvalidArgument("a namespace needs a fast key");
  }
  for (const auto& [name, value] : a.key_extras) {
    if (name.empty()) return InvalidArgument("a key extra needs a name");
    (*d.mutable_key_extras())[name] = value;
  }
  return d;
}

}  // namespace qdcache::cli
