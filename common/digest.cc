#include "common/digest.h"

#include <openssl/evp.h>

namespace qdcache {

Digest Sha256(std::string_view data) {
  Sha256Hasher h;
  h.Update(data);
  return h.Finish();
}

namespace {

// SHA-256 fetched from OpenSSL's providers once. EVP_sha256() makes every
// EVP_DigestInit_ex fetch it again, under a lock: measured, that was most of
// the cost of the short digests the store takes per alias read.
const EVP_MD* FetchedSha256() {
  static const EVP_MD* const md = [] {
    const EVP_MD* fetched = EVP_MD_fetch(nullptr, "SHA2-256", nullptr);
    return fetched != nullptr ? fetched : EVP_sha256();
  }();
  return md;
}

}  // namespace

Sha256Hasher::Sha256Hasher() : ctx_(EVP_MD_CTX_new()) {
  EVP_DigestInit_ex(static_cast<EVP_MD_CTX*>(ctx_), FetchedSha256(), nullptr);
}

Sha256Hasher::~Sha256Hasher() { EVP_MD_CTX_free(static_cast<EVP_MD_CTX*>(ctx_)); }

void Sha256Hasher::Update(std::string_view data) {
  EVP_DigestUpdate(static_cast<EVP_MD_CTX*>(ctx_), data.data(), data.size());
}

void Sha256Hasher::UpdateField(std::string_view data) {
  UpdateU64(data.size());
  Update(data);
}

void Sha256Hasher::UpdateU64(std::uint64_t v) {
  unsigned char b[8];
  for (int i = 0; i < 8; ++i) b[i] = static_cast<unsigned char>(v >> (8 * i));
  EVP_DigestUpdate(static_cast<EVP_MD_CTX*>(ctx_), b, sizeof b);
}

Digest Sha256Hasher::Finish() {
  Digest d{};
  unsigned int len = 0;
  EVP_DigestFinal_ex(static_cast<EVP_MD_CTX*>(ctx_), d.data(), &len);
  return d;
}

}  // namespace qdcache
