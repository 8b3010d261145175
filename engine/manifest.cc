#include "engine/manifest.h"

#include <algorithm>
#include <vector>

#include "common/utf8.h"
#include "engine/cached_output.pb.h"

namespace qdcache::engine {
namespace {

Status CheckDependency(const std::string& name, const std::string& digest, std::size_t index) {
  const std::string which = "dependencies[" + std::to_string(index) + "]";
  if (name.empty()) return InvalidArgument(which + " has an empty name");
  if (name.size() > kMaxDependencyNameBytes) {
    return InvalidArgument(which + " name is " + std::to_string(name.size()) + " bytes (limit " +
                           std::to_string(kMaxDependencyNameBytes) + ")");
  }
  if (digest.empty() || digest.size() > kMaxDependencyDigestBytes) {
    return InvalidArgument(which + " (\"" + name.substr(0, 64) + "\") digest is " + std::to_string(digest.size()) +
                           " bytes (1 to " + std::to_string(kMaxDependencyDigestBytes) + ")");
  }
  return Status::Ok();
}

}  // namespace

Expected<std::string> EncodeManifest(const google::protobuf::RepeatedPtrField<v1::Dependency>& dependencies) {
  if (dependencies.empty()) return std::string();
  if (static_cast<std::size_t>(dependencies.size()) > kMaxDependencies) {
    return InvalidArgument("too many dependencies: " + std::to_string(dependencies.size()) + " (limit " +
                           std::to_string(kMaxDependencies) + ")");
  }
  std::vector<const v1::Dependency*> sorted;
  for (int i = 0; i < dependencies.size(); ++i) {
    const v1::Dependency& d = dependencies[i];
    QDC_RETURN_IF_ERROR(CheckDependency(d.name(), d.digest(), static_cast<std::size_t>(i)));
    sorted.push_back(&d);
  }
  std::sort(sorted.begin(), sorted.end(), [](const v1::Dependency* a, const v1::Dependency* b) {
    return a->name() < b->name();
  });
  internal::AliasManifest manifest;
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    if (i > 0 && sorted[i]->name() == sorted[i - 1]->name()) {
      return InvalidArgument("dependency \"" + sorted[i]->name().substr(0, 64) + "\" is named twice");
    }
    internal::CachedDependency* kept = manifest.add_dependencies();
    kept->set_name(sorted[i]->name());
    kept->set_digest(sorted[i]->digest());
  }
  std::string out;
  manifest.SerializeToString(&out);
  return out;
}

Status DecodeManifest(std::string_view bytes, google::protobuf::RepeatedPtrField<v1::Dependency>* out) {
  out->Clear();
  if (bytes.empty()) return Status::Ok();
  internal::AliasManifest manifest;
  if (!manifest.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return DataLoss("the alias's dependency manifest does not decode");
  }
  if (manifest.dependencies().empty() ||
      static_cast<std::size_t>(manifest.dependencies_size()) > kMaxDependencies) {
    return DataLoss("the alias's dependency manifest has a bad count");
  }
  for (int i = 0; i < manifest.dependencies_size(); ++i) {
    const internal::CachedDependency& d = manifest.dependencies(i);
    if (!CheckDependency(d.name(), d.digest(), static_cast<std::size_t>(i)).ok() ||
        FirstInvalidUtf8(d.name()) != std::string_view::npos ||
        (i > 0 && !(manifest.dependencies(i - 1).name() < d.name()))) {
      return DataLoss("the alias's dependency manifest is not canonical");
    }
    v1::Dependency* wire = out->Add();
    wire->set_name(d.name());
    wire->set_digest(d.digest());
  }
  return Status::Ok();
}

}  // namespace qdcache::engine
