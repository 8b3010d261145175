#include "signing/signing_key.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <new>

#include "common/digest.h"
#include "common/file_read.h"

namespace qdcache::signing {
namespace {

constexpr std::size_t kMaxKeyFileBytes = 64 << 10;

std::string OpenSslError() {
  const unsigned long e = ERR_get_error();
  ERR_clear_error();
  if (e == 0) return "unknown OpenSSL error";
  char text[256];
  ERR_error_string_n(e, text, sizeof text);
  return text;
}

// Never prompts for a passphrase: an encrypted key fails to load.
int NoPassphrase(char*, int, int, void*) { return -1; }

std::string BioText(BIO* bio) {
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio, &data);
  return std::string(data, static_cast<std::size_t>(n));
}

Status WriteNew(const std::string& path, std::string_view text, mode_t mode) {
  // O_EXCL|O_NOFOLLOW: never opens what is already there, a link included.
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
  if (fd < 0) {
    const int e = errno;
    if (e == EEXIST) return {Code::kAlreadyExists, path + " already exists; it is left as it is"};
    if (e == EACCES) return {Code::kPermissionDenied, "cannot create " + path + ": " + std::strerror(e)};
    if (e == ENOENT) return NotFound("cannot create " + path + ": " + std::strerror(e));
    return FailedPrecondition("cannot create " + path + ": " + std::strerror(e));
  }
  Status status;
  std::size_t done = 0;
  while (status.ok() && done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) status = FailedPrecondition("cannot write " + path + ": " + std::strerror(errno));
    else done += static_cast<std::size_t>(n);
  }
  // The mode asked for, whatever the umask made of it.
  if (status.ok() && ::fchmod(fd, mode) != 0) status = FailedPrecondition("cannot chmod " + path);
  if (status.ok() && ::fsync(fd) != 0) status = FailedPrecondition("cannot sync " + path);
  ::close(fd);
  if (!status.ok()) ::unlink(path.c_str());  // ours: created above
  return status;
}

bool IsPublicOnly(std::string_view pem) {
  return pem.find("-----BEGIN PUBLIC KEY-----") != std::string_view::npos &&
         pem.find("PRIVATE KEY-----") == std::string_view::npos;
}

Expected<std::string> RawPublicKey(EVP_PKEY* key) {
  std::string raw(kPublicKeyBytes, '\0');
  std::size_t n = raw.size();
  if (EVP_PKEY_get_raw_public_key(key, reinterpret_cast<unsigned char*>(raw.data()), &n) != 1 ||
      n != kPublicKeyBytes) {
    return Internal("cannot read the Ed25519 public key: " + OpenSslError());
  }
  return raw;
}

}  // namespace

std::string KeyId(std::string_view public_key) {
  return "ed25519:" + ToHex(DigestBytes(Sha256(public_key)).substr(0, 8));
}

Expected<SigningKey> SigningKey::Load(const std::string& path) {
  const std::string what = "signing key " + path;
  Expected<std::string> pem = ReadSmallFile(path, what, kMaxKeyFileBytes, FileAccess::kPrivate);
  if (pem.ok()) return Parse(*pem, path);
  // Too open: a public key named by mistake is told apart (asking to chmod
  // 600 it would not help). The file is read again only on this error path.
  if (pem.status().code() == Code::kFailedPrecondition) {
    Expected<std::string> any = ReadSmallFile(path, what, kMaxKeyFileBytes, FileAccess::kAny);
    if (any.ok() && IsPublicOnly(*any)) return Parse(*any, path);
  }
  return pem.status();
}

Expected<SigningKey> SigningKey::Parse(std::string_view pem, std::string_view origin) {
  if (IsPublicOnly(pem)) {
    return InvalidArgument(std::string(origin) + " holds a public key; signing needs the private key");
  }
  if (pem.find("-----BEGIN ENCRYPTED PRIVATE KEY-----") != std::string_view::npos) {
    return InvalidArgument(std::string(origin) +
                           " is protected by a passphrase, which a daemon cannot type: "
                           "`openssl pkey -in KEY -out PLAIN` and keep PLAIN at mode 600");
  }
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())),
                                                &BIO_free);
  EVP_PKEY* raw = bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, &NoPassphrase, nullptr) : nullptr;
  if (raw == nullptr) {
    return InvalidArgument(std::string(origin) + " holds no PEM private key (" + OpenSslError() +
                           "); make one with `qdcache keygen FILE`");
  }
  std::shared_ptr<evp_pkey_st> key(raw, &EVP_PKEY_free);
  if (EVP_PKEY_get_id(raw) != EVP_PKEY_ED25519) {
    const char* type = EVP_PKEY_get0_type_name(raw);  // may be null for a provider's key
    return InvalidArgument(std::string(origin) + " holds a " + (type != nullptr ? type : "non-Ed25519") +
                           " key; shared entries are signed with Ed25519 keys");
  }
  QDC_ASSIGN_OR_RETURN(std::string public_key, RawPublicKey(raw));
  return SigningKey(std::move(key), std::move(public_key));
}

Expected<SigningKey> SigningKey::Generate() {
  EVP_PKEY* raw = EVP_PKEY_Q_keygen(nullptr, nullptr, "ED25519");
  if (raw == nullptr) return Internal("cannot generate an Ed25519 key: " + OpenSslError());
  std::shared_ptr<evp_pkey_st> key(raw, &EVP_PKEY_free);
  QDC_ASSIGN_OR_RETURN(std::string public_key, RawPublicKey(raw));
  return SigningKey(std::move(key), std::move(public_key));
}

Signature SigningKey::Sign(std::string_view message) const {
  Signature out{public_key_, std::string(kSignatureBytes, '\0')};
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  std::size_t n = out.bytes.size();
  // Signing with a loaded Ed25519 key fails only when memory runs out.
  if (!ctx || EVP_DigestSignInit(ctx.get(), nullptr, nullptr, nullptr, key_.get()) != 1 ||
      EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(out.bytes.data()), &n,
                     reinterpret_cast<const unsigned char*>(message.data()), message.size()) != 1) {
    throw std::bad_alloc();
  }
  return out;
}

std::string SigningKey::PrivatePem() const {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new(BIO_s_mem()), &BIO_free);
  if (!bio || PEM_write_bio_PrivateKey(bio.get(), key_.get(), nullptr, nullptr, 0, nullptr, nullptr) != 1) {
    throw std::bad_alloc();
  }
  return BioText(bio.get());
}

std::string SigningKey::PublicPem() const {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new(BIO_s_mem()), &BIO_free);
  if (!bio || PEM_write_bio_PUBKEY(bio.get(), key_.get()) != 1) throw std::bad_alloc();
  return BioText(bio.get());
}

Status WriteNewKeyPair(const SigningKey& key, const std::string& path) {
  const std::string public_path = path + ".pub";
  // Checked first so that nothing is created when the public half cannot be.
  struct stat st {};
  if (::lstat(public_path.c_str(), &st) == 0) {
    return {Code::kAlreadyExists, public_path + " already exists; it is left as it is"};
  }
  QDC_RETURN_IF_ERROR(WriteNew(path, key.PrivatePem(), 0600));
  Status s = WriteNew(public_path, key.PublicPem(), 0644);
  if (!s.ok()) ::unlink(path.c_str());  // created just above
  return s;
}

}  // namespace qdcache::signing
