#include "client/proto_json.h"

#include <algorithm>
#include <string>

#include "common/digest.h"

namespace qdcache::client {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

// One value of `field` (element `index` when repeated, else the field).
nlohmann::json Value(const Message& message, const FieldDescriptor* field, int index) {
  const Reflection* r = message.GetReflection();
  const bool rep = field->is_repeated();
  switch (field->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
      return rep ? r->GetRepeatedInt32(message, field, index) : r->GetInt32(message, field);
    case FieldDescriptor::CPPTYPE_INT64:
      return rep ? r->GetRepeatedInt64(message, field, index) : r->GetInt64(message, field);
    case FieldDescriptor::CPPTYPE_UINT32:
      return rep ? r->GetRepeatedUInt32(message, field, index) : r->GetUInt32(message, field);
    case FieldDescriptor::CPPTYPE_UINT64:
      return rep ? r->GetRepeatedUInt64(message, field, index) : r->GetUInt64(message, field);
    case FieldDescriptor::CPPTYPE_DOUBLE:
      return rep ? r->GetRepeatedDouble(message, field, index) : r->GetDouble(message, field);
    case FieldDescriptor::CPPTYPE_FLOAT:
      return rep ? r->GetRepeatedFloat(message, field, index) : r->GetFloat(message, field);
    case FieldDescriptor::CPPTYPE_BOOL:
      return rep ? r->GetRepeatedBool(message, field, index) : r->GetBool(message, field);
    case FieldDescriptor::CPPTYPE_ENUM:
      return (rep ? r->GetRepeatedEnum(message, field, index) : r->GetEnum(message, field))->name();
    case FieldDescriptor::CPPTYPE_STRING: {
      std::string scratch;
      const std::string& text = rep ? r->GetRepeatedStringReference(message, field, index, &scratch)
                                    : r->GetStringReference(message, field, &scratch);
      if (field->type() == FieldDescriptor::TYPE_BYTES) return ToHex(text);
      return text;
    }
    case FieldDescriptor::CPPTYPE_MESSAGE:
      return ProtoToJson(rep ? r->GetRepeatedMessage(message, field, index) : r->GetMessage(message, field));
  }
  return nullptr;
}

}  // namespace

nlohmann::json ProtoToJson(const Message& message, const std::vector<std::string_view>& skip) {
  nlohmann::json out = nlohmann::json::object();
  const google::protobuf::Descriptor* descriptor = message.GetDescriptor();
  const Reflection* r = message.GetReflection();
  for (int i = 0; i < descriptor->field_count(); ++i) {
    const FieldDescriptor* field = descriptor->field(i);
    if (std::find(skip.begin(), skip.end(), field->name()) != skip.end()) continue;
    if (field->is_map()) {
      // Entries are messages {key, value}; JSON object keys are text.
      nlohmann::json map = nlohmann::json::object();
      for (int k = 0; k < r->FieldSize(message, field); ++k) {
        const Message& entry = r->GetRepeatedMessage(message, field, k);
        const nlohmann::json key = Value(entry, entry.GetDescriptor()->map_key(), 0);
        map[key.is_string() ? key.get<std::string>() : key.dump()] =
            Value(entry, entry.GetDescriptor()->map_value(), 0);
      }
      out[field->name()] = std::move(map);
    } else if (field->is_repeated()) {
      nlohmann::json list = nlohmann::json::array();
      for (int k = 0; k < r->FieldSize(message, field); ++k) list.push_back(Value(message, field, k));
      out[field->name()] = std::move(list);
    } else if (field->has_presence() && !r->HasField(message, field)) {
      out[field->name()] = nullptr;  // an unset message, oneof member or optional scalar
    } else {
      out[field->name()] = Value(message, field, -1);
    }
  }
  return out;
}

}  // namespace qdcache::client
