// Dependency manifests: the (name, digest) pairs a compile declares
// (KernelDescriptor.dependencies), kept with its fast-key alias
// (store::AliasValue::manifest) and returned by lookups, so that a client
// can tell an alias made from files that have changed since.
//
// The encoding is canonical (sorted by name), so two manifests are the same
// dependencies exactly when their bytes are equal. Names are opaque.
#pragma once

#include <string>
#include <string_view>

#include "common/expected.h"
#include "qdcache/v1/qdcache.pb.h"

namespace qdcache::engine {

inline constexpr std::size_t kMaxDependencies = 256;
inline constexpr std::size_t kMaxDependencyNameBytes = 1024;
inline constexpr std::size_t kMaxDependencyDigestBytes = 64;

// The manifest of `dependencies` ("" for none). INVALID_ARGUMENT naming the
// entry for an empty or too long name or digest, a repeated name, or too many.
[[nodiscard]] Expected<std::string> EncodeManifest(
    const google::protobuf::RepeatedPtrField<v1::Dependency>& dependencies);

// The dependencies of a stored manifest, sorted by name. DATA_LOSS when it
// does not decode or breaks the rules above (not written by EncodeManifest).
[[nodiscard]] Status DecodeManifest(std::string_view manifest,
                                    google::protobuf::RepeatedPtrField<v1::Dependency>* out);

}  // namespace qdcache::engine
