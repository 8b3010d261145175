#include "client/dependencies.h"

#include "common/digest.h"
#include "common/file_read.h"

namespace qdcache::client {
namespace {

constexpr std::size_t kMaxDependencyFileBytes = std::size_t{1} << 30;

}  // namespace

Expected<v1::Dependency> FileDependency(const std::string& path) {
  QDC_ASSIGN_OR_RETURN(std::string bytes, ReadSmallFile(path, "dependency " + path, kMaxDependencyFileBytes));
  v1::Dependency d;
  d.set_name(path);
  d.set_digest(DigestBytes(Sha256(bytes)));
  return d;
}

bool FileUnchanged(const std::string& name, const std::string& digest) {
  Expected<v1::Dependency> now = FileDependency(name);
  return now.ok() && now->digest() == digest;
}

bool DropIfStale(v1::CompileResult* result, const DependencyCheck& check) {
  if (result->status() != v1::CACHE_STATUS_ALIAS_HIT) return false;
  for (const v1::Dependency& d : result->dependencies()) {
    if (!check(d.name(), d.digest())) {
      result->clear_artifact();
      result->clear_dependencies();
      result->set_status(v1::CACHE_STATUS_MISS);
      return true;
    }
  }
  return false;
}

}  // namespace qdcache::client
