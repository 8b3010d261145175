// What the store keeps per artifact. The store is agnostic of the compiler:
// kinds and targets are opaque to it, and metadata the daemon wants kept
// (per-entry facts) travels as an opaque, daemon-encoded blob.
#pragma once

#include <cstdint>
#include <string>

namespace qdcache::store {

// 32 raw bytes (SHA-256) computed by the daemon. The store never derives keys.
using ArtifactKey = std::string;

struct ArtifactRecord {
  ArtifactKey key;
  std::uint32_t kind = 0;        // daemon-defined (1 = cubin, 2 = shared object)
  std::string target;            // "cuda:sm_90", "cpu:x86-64"
  std::string toolchain;         // toolchain fingerprint (hex)
  std::string payload;           // the artifact bytes
  std::string payload_digest;    // SHA-256(payload), 32 raw bytes; set by Put if empty
  std::string ptx;               // CUDA: PTX text; may be empty
  std::string metadata;          // opaque to the store (daemon-encoded entry facts)
  std::string compile_log;
  std::uint64_t compile_micros = 0;
  std::uint64_t created_unix_ms = 0;  // set by Put if 0
};

// What an alias names: an artifact, and the manifest the daemon keeps with
// it (the dependencies its compile declared, daemon-encoded; opaque to the
// store; empty: none).
struct AliasValue {
  ArtifactKey key;
  std::string manifest;
  friend bool operator==(const AliasValue&, const AliasValue&) = default;
};

// Fast-key alias: (tenant, namespace, target, fast_key) -> artifact key.
// Target is part of the alias so one fast key can never serve another SM/CPU.
struct AliasKey {
  // Who made the alias: "uid:1000" (unix peer), "token:NAME", "cert:CN"
  // (TCP peers). Opaque to the store; never empty in the daemon.
  std::string tenant;
  std::string ns;
  std::string target;
  std::string fast_key;  // opaque client bytes
};

}  // namespace qdcache::store
