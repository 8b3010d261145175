// Conversions between compiler output, store records and wire artifacts.
// Per-entry facts and timings are kept in the record's opaque metadata blob,
// and stage outputs in the stage column family, as the cache's own messages
// (cached_output.proto), not the public protocol's.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/expected.h"
#include "compiler/compiler.h"
#include "engine/artifact_key.h"
#include "qdcache/v1/qdcache.pb.h"
#include "store/record.h"

namespace qdcache::engine {

// `components`: what `artifact_key` was computed from (KeyFromComponents),
// kept in the record so that explain works from the key alone.
[[nodiscard]] store::ArtifactRecord MakeRecord(const std::string& artifact_key, const std::string& target,
                                               const std::string& toolchain,
                                               compiler::CompileOutput output, double total_seconds,
                                               const std::vector<KeyComponent>& components = {});

// The key components a record keeps, when they are there and hash to its
// key (an older daemon's record has none; a record whose components do not
// match its key is not believed). Nullopt otherwise.
[[nodiscard]] std::optional<std::vector<KeyComponent>> StoredComponents(const store::ArtifactRecord& record);

// Fills `out` from a verified record, copying its payload (unless
// `with_payload` is false: a caller that sends the record's bytes itself)
// and its PTX only with include_ptx. Returns DATA_LOSS if the metadata blob
// cannot be decoded (the caller treats the record as corrupt).
[[nodiscard]] Status ToWireArtifact(const store::ArtifactRecord& record, bool include_ptx, v1::Artifact* out,
                                    bool with_payload = true);

// Stage outputs (PTX with its entries; a linked cubin with entries and log)
// kept in the store's stage column family (cached_output.proto StageOutput).
[[nodiscard]] std::string EncodeStage(const compiler::CompileOutput& output);
[[nodiscard]] Expected<compiler::CompileOutput> DecodeStage(std::string_view bytes);

// Each requested entry point must be among the artifact's entries.
[[nodiscard]] Status CheckEntryPoints(const v1::Artifact& artifact,
                                      const google::protobuf::RepeatedPtrField<std::string>& wanted);

}  // namespace qdcache::engine
