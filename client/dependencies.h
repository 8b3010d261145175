// Dependency manifests on the client side (docs/integration.md, "Fast
// keys"): what a frontend declares with a compile (KernelDescriptor.
// dependencies) and checks when a lookup finds the alias, so that an alias
// made from files that changed since is treated as a miss. The daemon
// stores the (name, digest) pairs and returns them; names are the client's.
#pragma once

#include <functional>
#include <string>

#include "common/expected.h"
#include "qdcache/v1/qdcache.pb.h"

namespace qdcache::client {

// Whether the dependency `name` still has `digest`.
using DependencyCheck = std::function<bool(const std::string& name, const std::string& digest)>;

// The dependency on the file at `path`: named by `path` as given, its
// digest the SHA-256 of the file's bytes. Errors name the file.
[[nodiscard]] Expected<v1::Dependency> FileDependency(const std::string& path);

// A DependencyCheck for dependencies made by FileDependency: the file named
// still has that SHA-256. A file that cannot be read has changed.
[[nodiscard]] bool FileUnchanged(const std::string& name, const std::string& digest);

// An ALIAS_HIT `result` one of whose dependencies `check` says has changed
// becomes a MISS (its artifact dropped): the caller compiles again, which
// rebinds the alias (counted by the daemon in alias_stale). True when it did.
bool DropIfStale(v1::CompileResult* result, const DependencyCheck& check);

}  // namespace qdcache::client
