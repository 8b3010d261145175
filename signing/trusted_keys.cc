#include "signing/trusted_keys.h"

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>

#include "common/file_read.h"

namespace qdcache::signing {
namespace {

constexpr std::size_t kMaxTrustedFileBytes = 1 << 20;
constexpr std::size_t kMaxKeyFiles = 1000;
constexpr std::string_view kBegin = "-----BEGIN PUBLIC KEY-----";
constexpr std::string_view kEnd = "-----END PUBLIC KEY-----";

std::string Trimmed(std::string_view line) {
  while (!line.empty() && (line.front() == ' ' || line.front() == '\t' || line.front() == '\r')) line.remove_prefix(1);
  while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r')) line.remove_suffix(1);
  return std::string(line);
}

Expected<std::shared_ptr<evp_pkey_st>> ParseBlock(std::string_view block, const std::string& where) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new_mem_buf(block.data(), static_cast<int>(block.size())),
                                                &BIO_free);
  EVP_PKEY* raw = bio ? PEM_read_bio_PUBKEY(bio.get(), nullptr, nullptr, nullptr) : nullptr;
  ERR_clear_error();
  if (raw == nullptr) return InvalidArgument(where + ": not a valid PEM public key");
  std::shared_ptr<evp_pkey_st> key(raw, &EVP_PKEY_free);
  if (EVP_PKEY_get_id(raw) != EVP_PKEY_ED25519) {
    const char* type = EVP_PKEY_get0_type_name(raw);  // may be null for a provider's key
    return InvalidArgument(where + ": a " + std::string(type != nullptr ? type : "non-Ed25519") +
                           " key; shared entries are signed with Ed25519 keys");
  }
  return key;
}

}  // namespace

Expected<TrustedKeys> TrustedKeys::Parse(std::string_view pem, std::string_view origin) {
  TrustedKeys out;
  std::string block;
  int block_line = 0;
  int number = 0;
  std::size_t pos = 0;
  while (pos <= pem.size()) {
    const std::size_t end = std::min(pem.find('\n', pos), pem.size());
    const std::string line = Trimmed(pem.substr(pos, end - pos));
    pos = end + 1;
    ++number;
    const std::string where = std::string(origin) + ":" + std::to_string(number);
    if (block_line == 0) {
      if (line.empty() || line.front() == '#') continue;
      if (line.find("PRIVATE KEY") != std::string::npos) {
        return InvalidArgument(where + ": a private key; trusted keys are public keys "
                               "(the .pub file of `qdcache keygen`, or `openssl pkey -in KEY -pubout`)");
      }
      if (line != kBegin) return InvalidArgument(where + ": expected \"" + std::string(kBegin) + "\"");
      block_line = number;
      block = line + "\n";
      continue;
    }
    block += line + "\n";
    if (line != kEnd) continue;
    QDC_ASSIGN_OR_RETURN(std::shared_ptr<evp_pkey_st> key,
                         ParseBlock(block, std::string(origin) + ":" + std::to_string(block_line)));
    std::string raw(kPublicKeyBytes, '\0');
    std::size_t n = raw.size();
    if (EVP_PKEY_get_raw_public_key(key.get(), reinterpret_cast<unsigned char*>(raw.data()), &n) != 1 ||
        n != kPublicKeyBytes) {
      ERR_clear_error();
      return InvalidArgument(where + ": cannot read the Ed25519 public key");
    }
    TrustedKeys one;
    one.keys_.push_back(Key{std::move(raw), std::move(key)});
    out.Merge(one);
    block_line = 0;
  }
  if (block_line != 0) {
    return InvalidArgument(std::string(origin) + ":" + std::to_string(block_line) + ": public key without \"" +
                           std::string(kEnd) + "\"");
  }
  if (out.keys_.empty()) return InvalidArgument(std::string(origin) + " holds no public key");
  return out;
}

Expected<TrustedKeys> TrustedKeys::Load(const std::string& path) {
  std::error_code ec;
  const std::filesystem::file_status status = std::filesystem::status(path, ec);
  if (!std::filesystem::is_directory(status)) {
    QDC_ASSIGN_OR_RETURN(std::string text, ReadSmallFile(path, "trusted keys file " + path, kMaxTrustedFileBytes,
                                                         FileAccess::kNotShared));
    return Parse(text, path);
  }
  if ((static_cast<unsigned>(status.permissions()) & (S_IWGRP | S_IWOTH)) != 0) {
    return FailedPrecondition("trusted keys directory " + path +
                              " is writable by group or others; whoever can write it decides what is "
                              "trusted: chmod go-w it");
  }
  std::vector<std::string> files;
  for (std::filesystem::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.starts_with(".") || !(name.ends_with(".pem") || name.ends_with(".pub"))) continue;
    // A FIFO or device named *.pem (or a link to one) is skipped, not opened.
    std::error_code kind_ec;
    if (!std::filesystem::is_regular_file(it->status(kind_ec))) continue;
    files.push_back(it->path().string());
    if (files.size() > kMaxKeyFiles) break;
  }
  if (ec) return FailedPrecondition("cannot list trusted keys directory " + path + ": " + ec.message());
  if (files.empty()) return FailedPrecondition("trusted keys directory " + path + " holds no *.pem or *.pub file");
  if (files.size() > kMaxKeyFiles) {
    return FailedPrecondition("trusted keys directory " + path + " holds more than " +
                              std::to_string(kMaxKeyFiles) + " key files");
  }
  std::sort(files.begin(), files.end());
  TrustedKeys out;
  for (const std::string& file : files) {
    QDC_ASSIGN_OR_RETURN(std::string text, ReadSmallFile(file, "trusted keys file " + file, kMaxTrustedFileBytes,
                                                         FileAccess::kNotShared));
    QDC_ASSIGN_OR_RETURN(TrustedKeys keys, Parse(text, file));
    out.Merge(keys);
  }
  return out;
}

void TrustedKeys::Merge(const TrustedKeys& other) {
  for (const Key& key : other.keys_) {
    const bool known = std::any_of(keys_.begin(), keys_.end(), [&](const Key& k) { return k.raw == key.raw; });
    if (!known) keys_.push_back(key);
  }
}

Status TrustedKeys::Verify(const Signature& signature, std::string_view message) const {
  const auto key = std::find_if(keys_.begin(), keys_.end(),
                                [&](const Key& k) { return k.raw == signature.public_key; });
  if (key == keys_.end()) {
    return {Code::kUnauthenticated, "signed by " +
                                        (signature.public_key.size() == kPublicKeyBytes
                                             ? KeyId(signature.public_key)
                                             : std::string("a malformed key")) +
                                        ", which is not a trusted key"};
  }
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  const bool ok = ctx && signature.bytes.size() == kSignatureBytes &&
                  EVP_DigestVerifyInit(ctx.get(), nullptr, nullptr, nullptr, key->pkey.get()) == 1 &&
                  EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char*>(signature.bytes.data()),
                                   signature.bytes.size(),
                                   reinterpret_cast<const unsigned char*>(message.data()), message.size()) == 1;
  ERR_clear_error();
  if (!ok) {
    return {Code::kUnauthenticated,
            "signature by " + KeyId(signature.public_key) + " does not cover this key and content"};
  }
  return Status::Ok();
}

std::vector<std::string> TrustedKeys::ids() const {
  std::vector<std::string> out;
  for (const Key& k : keys_) out.push_back(KeyId(k.raw));
  return out;
}

Status SignaturePolicy::Check(const std::optional<Signature>& signature, std::string_view message) const {
  if (!trusted) return Status::Ok();
  if (!signature) {
    if (!require) return Status::Ok();
    return {Code::kUnauthenticated, "unsigned, and signatures are required"};
  }
  return trusted->Verify(*signature, message);
}

}  // namespace qdcache::signing
