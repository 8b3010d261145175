// The public keys whose signatures a daemon accepts on shared entries
// (--remote-trusted-keys), and the rule that decides whether an entry read
// from a shared place may be used (SignaturePolicy).
//
// A trusted-keys path is a file or a directory:
//   file       one or more PEM public keys ("-----BEGIN PUBLIC KEY-----"),
//              concatenated; nothing else but blank lines and '#' comments
//   directory  every regular file in it named *.pem or *.pub (key rotation:
//              drop the new writer's key in, remove the old one later)
// Files and the directory must not be writable by group or others: whoever
// can write them decides what is trusted. A private key is refused (it would
// put the secret where readers are). Only Ed25519 keys are accepted.
//
// Thread-safe (const after Load).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/expected.h"
#include "signing/signing_key.h"

namespace qdcache::signing {

class TrustedKeys {
 public:
  [[nodiscard]] static Expected<TrustedKeys> Load(const std::string& path);
  // PEM text of one file; `origin` names it in errors. INVALID_ARGUMENT when
  // it holds no public key, a private key, a non-Ed25519 key or other text.
  [[nodiscard]] static Expected<TrustedKeys> Parse(std::string_view pem, std::string_view origin);
  // Adds the keys of `other` (a key already present is kept once).
  void Merge(const TrustedKeys& other);

  // OK when `signature` was made by one of these keys over exactly
  // `message`; UNAUTHENTICATED saying which it was not (an unknown key, named
  // by KeyId, or a signature that does not verify).
  [[nodiscard]] Status Verify(const Signature& signature, std::string_view message) const;

  [[nodiscard]] std::size_t size() const { return keys_.size(); }
  [[nodiscard]] std::vector<std::string> ids() const;  // KeyId of each, in load order

 private:
  struct Key {
    std::string raw;  // 32 bytes
    std::shared_ptr<evp_pkey_st> pkey;
  };
  std::vector<Key> keys_;
};

// Whether an entry read from a shared place (the remote tier, a bundle) may
// be used, given its signature.
struct SignaturePolicy {
  // Null: signatures are not checked (every entry is accepted, signed or not:
  // the store is unauthenticated).
  std::shared_ptr<const TrustedKeys> trusted;
  // With trusted keys: an unsigned entry is refused too. Off is for moving a
  // fleet to signatures: unsigned entries are accepted, signed ones must verify.
  bool require = true;

  [[nodiscard]] bool checks() const { return trusted != nullptr; }
  // OK to use an entry carrying `signature` (nullopt: unsigned) whose
  // claim is `message`; UNAUTHENTICATED with the reason otherwise.
  [[nodiscard]] Status Check(const std::optional<Signature>& signature, std::string_view message) const;
};

}  // namespace qdcache::signing
