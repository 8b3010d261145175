#include "client/cli/kernel_options.h"

#include "client/fast_key.h"
#include "client/wire_kind.h"
#include "client/wire_options.h"
#include "client/wire_target.h"
#include "common/digest.h"

namespace qdcache::cli {

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

Expected<v1::KernelDescriptor> DescriptorWithoutIr(const KernelOptions& a, std::string_view source_path) {
  v1::KernelDescriptor d;
  QDC_ASSIGN_OR_RETURN(*d.mutable_target(), client::ParseWireTarget(a.target));
  if (a.kind.empty()) {
    d.set_kind(client::SourceKindOfPath(source_path));
  } else {
    QDC_ASSIGN_OR_RETURN(v1::SourceKind kind, client::ParseSourceKind(a.kind));
    d.set_kind(kind);
  }
  for (const auto& [name, value] : a.options) {
    const OptionSpec* spec = FindOption(name);
    if (spec == nullptr) return InvalidArgument("unknown compile option \"" + name + "\" (known: " + OptionNames() + ")");
    QDC_RETURN_IF_ERROR(client::SetWireOption(*d.mutable_options(), *spec, value));
  }
  for (const std::string& e : a.entries) d.add_entry_points(e);
  const bool cuda = d.kind() == v1::SOURCE_KIND_CUDA;
  if (!cuda && (!a.name_expressions.empty() || !a.defines.empty() || !a.undefines.empty() ||
                !a.header_flags.empty() || !a.include_dirs.empty())) {
    return InvalidArgument("--name-expression, -D, -U, --header and -I are for CUDA C++ sources (--kind cuda, .cu)");
  }
  for (const std::string& e : a.name_expressions) d.add_name_expressions(e);
  for (const std::string& m : a.defines) d.add_defines(m);
  for (const std::string& m : a.undefines) d.add_undefines(m);
  if (!a.fast_key_hex.empty() && !a.fast_key_text.empty()) {
    return InvalidArgument("give the fast key once: as hex (--fast-key) or as text (--fast-key-text)");
  }
  if (!a.fast_key_hex.empty()) {
    QDC_ASSIGN_OR_RETURN(*d.mutable_fast_key(), client::FastKeyFromHex(a.fast_key_hex));
    d.set_namespace_(a.ns);
  } else if (!a.fast_key_text.empty()) {
    d.set_fast_key(a.fast_key_text);
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
