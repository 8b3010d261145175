// Ed25519 signing keys (OpenSSL): the private key a daemon or `qdcache
// export --sign` signs shared entries with, and the raw signature it makes.
//
// Key files are PEM, as OpenSSL writes them:
//   private  "-----BEGIN PRIVATE KEY-----" (PKCS#8, unencrypted), mode 600;
//            `qdcache keygen FILE` or `openssl genpkey -algorithm ed25519`
//   public   "-----BEGIN PUBLIC KEY-----" (SubjectPublicKeyInfo);
//            FILE.pub from keygen, or `openssl pkey -in FILE -pubout`
// A key is named in logs by KeyId, never by its bytes.
//
// Thread-safe: a loaded key may sign from any number of threads at once.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "common/expected.h"

struct evp_pkey_st;  // OpenSSL's EVP_PKEY

namespace qdcache::signing {

inline constexpr std::size_t kPublicKeyBytes = 32;
inline constexpr std::size_t kSignatureBytes = 64;

// A signature and the raw public key of the key that made it.
struct Signature {
  std::string public_key;  // kPublicKeyBytes
  std::string bytes;       // kSignatureBytes
};

// "ed25519:" and the first 8 bytes of SHA-256(raw public key), in hex.
[[nodiscard]] std::string KeyId(std::string_view public_key);

class SigningKey {
 public:
  // Reads a private key file. FAILED_PRECONDITION when group or others may
  // read or write it (chmod 600), or it is not a regular file; NOT_FOUND /
  // PERMISSION_DENIED when it cannot be opened; INVALID_ARGUMENT when it
  // holds no unencrypted Ed25519 private key (a public key, another
  // algorithm, a passphrase-protected key).
  [[nodiscard]] static Expected<SigningKey> Load(const std::string& path);
  // The same from PEM text; `origin` names it in errors.
  [[nodiscard]] static Expected<SigningKey> Parse(std::string_view pem, std::string_view origin);
  // A new random key.
  [[nodiscard]] static Expected<SigningKey> Generate();

  // Signs `message` (Ed25519 signs the message itself; no pre-hash).
  [[nodiscard]] Signature Sign(std::string_view message) const;

  [[nodiscard]] const std::string& public_key() const { return public_key_; }  // raw, 32 bytes
  [[nodiscard]] std::string id() const { return KeyId(public_key_); }
  [[nodiscard]] std::string PrivatePem() const;
  [[nodiscard]] std::string PublicPem() const;

 private:
  SigningKey(std::shared_ptr<evp_pkey_st> key, std::string public_key)
      : key_(std::move(key)), public_key_(std::move(public_key)) {}
  std::shared_ptr<evp_pkey_st> key_;
  std::string public_key_;
};

// Writes `key` as a new key pair: `path` (private, mode 600) and
// `path` + ".pub" (public, mode 644). Both must not exist: an existing file
// (or link, device, ...) at either is never touched; ALREADY_EXISTS names
// it. If the public half cannot be written, the private file just created
// is removed again.
[[nodiscard]] Status WriteNewKeyPair(const SigningKey& key, const std::string& path);

}  // namespace qdcache::signing
