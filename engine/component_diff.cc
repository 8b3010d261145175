#include "engine/component_diff.h"

#include <algorithm>
#include <unordered_map>

namespace qdcache::engine {
namespace {

bool IsDigest(const std::string& value) {
  return value.size() == 64 && std::all_of(value.begin(), value.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

std::string Cut(const std::string& value) {
  constexpr std::size_t kMax = 60;
  if (value.size() <= kMax) return value;
  std::size_t cut = kMax;
  while (cut > 0 && (static_cast<unsigned char>(value[cut]) & 0xC0) == 0x80) --cut;  // whole UTF-8 characters
  return value.substr(0, cut) + "…";
}

std::string Describe(const ComponentChange& c) {
  if (!c.before) return c.name + " added (= " + Cut(*c.after) + ")";
  if (!c.after) return c.name + " removed (was " + Cut(*c.before) + ")";
  if (c.name == "toolchain") return "toolchain changed";
  if (IsDigest(*c.before) && IsDigest(*c.after)) return c.name + " digest changed";
  return c.name + ": " + Cut(*c.before) + " → " + Cut(*c.after);
}

}  // namespace

std::vector<ComponentChange> DiffComponents(const std::vector<KeyComponent>& before,
                                            const std::vector<KeyComponent>& after) {
  std::unordered_map<std::string_view, const std::string*> earlier;
  for (const KeyComponent& c : before) earlier.emplace(c.name, &c.value);
  std::vector<ComponentChange> out;
  for (const KeyComponent& c : after) {
    auto it = earlier.find(c.name);
    if (it == earlier.end()) {
      out.push_back({c.name, std::nullopt, c.value});
      continue;
    }
    if (*it->second != c.value) out.push_back({c.name, *it->second, c.value});
    earlier.erase(it);
  }
  for (const KeyComponent& c : before) {
    if (earlier.count(c.name) != 0) out.push_back({c.name, c.value, std::nullopt});
  }
  return out;
}

std::string DescribeChanges(const std::vector<ComponentChange>& changes) {
  std::string out;
  for (const ComponentChange& c : changes) out += (out.empty() ? "" : "; ") + Describe(c);
  return out;
}

void ToWire(const std::vector<ComponentChange>& changes,
            google::protobuf::RepeatedPtrField<v1::ComponentChange>* out) {
  for (const ComponentChange& c : changes) {
    v1::ComponentChange* wire = out->Add();
    wire->set_name(c.name);
    if (c.before) wire->set_before(*c.before);
    if (c.after) wire->set_after(*c.after);
  }
}

void ToWire(const std::vector<KeyComponent>& components, google::protobuf::RepeatedPtrField<v1::KeyComponent>* out) {
  for (const KeyComponent& c : components) {
    v1::KeyComponent* wire = out->Add();
    wire->set_name(c.name);
    wire->set_value(c.value);
  }
}

}  // namespace qdcache::engine
