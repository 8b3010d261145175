#include "client/wire_options.h"

#include <string>

namespace qdcache::client {

Status SetWireOption(v1::CompileOptions& options, const OptionSpec& spec, std::uint32_t value) {
  QDC_RETURN_IF_ERROR(CheckOptionValue(spec, value));
  const google::protobuf::FieldDescriptor* field = options.GetDescriptor()->FindFieldByNumber(spec.field);
  if (field == nullptr) return Internal("option " + std::string(spec.name) + " has no field in CompileOptions");
  const google::protobuf::Reflection& reflection = *options.GetReflection();
  if (field->cpp_type() == google::protobuf::FieldDescriptor::CPPTYPE_BOOL) {
    reflection.SetBool(&options, field, value != 0);
  } else {
    reflection.SetUInt32(&options, field, value);
  }
  return Status::Ok();
}

Status SetWireOptionText(v1::CompileOptions& options, std::string_view name, std::string_view text) {
  const OptionSpec* spec = FindOption(name);
  if (spec == nullptr) {
    return InvalidArgument("unknown compile option \"" + std::string(name) + "\" (known: " + OptionNames() + ")");
  }
  CompileOptions parsed;
  QDC_RETURN_IF_ERROR(SetOptionText(parsed, *spec, text));
  return SetWireOption(options, *spec, spec->get(parsed));
}

}  // namespace qdcache::client
