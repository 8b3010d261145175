// Ed25519 keys, trusted-key sets and the claims they sign (signing/): what a
// signature covers, which keys files are accepted, and the policy readers
// apply. Real OpenSSL, real files in a scratch directory.
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>

#include "common/digest.h"
#include "signing/claim.h"
#include "signing/signing_key.h"
#include "signing/trusted_keys.h"

using namespace qdcache;
using namespace qdcache::signing;

namespace {

class Scratch {
 public:
  Scratch() {
    std::string tmpl = std::filesystem::temp_directory_path().string() + "/qdcache-signing-XXXXXX";
    REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
    path_ = tmpl;
  }
  ~Scratch() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }
  std::string File(const std::string& name, const std::string& text, mode_t mode) const {
    const std::string p = *this / name;
    std::ofstream(p) << text;
    REQUIRE(::chmod(p.c_str(), mode) == 0);
    return p;
  }

 private:
  std::string path_;
};

SigningKey NewKey() {
  Expected<SigningKey> key = SigningKey::Generate();
  REQUIRE(key.ok());
  return std::move(key).value();
}

TrustedKeys Trust(const std::string& pem) {
  Expected<TrustedKeys> keys = TrustedKeys::Parse(pem, "test");
  INFO(keys.status().ToString());
  REQUIRE(keys.ok());
  return std::move(keys).value();
}

std::string RsaPublicPem() {
  EVP_PKEY* rsa = EVP_PKEY_Q_keygen(nullptr, nullptr, "RSA", static_cast<size_t>(2048));
  REQUIRE(rsa != nullptr);
  BIO* bio = BIO_new(BIO_s_mem());
  REQUIRE(PEM_write_bio_PUBKEY(bio, rsa) == 1);
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio, &data);
  std::string pem(data, static_cast<std::size_t>(n));
  BIO_free(bio);
  EVP_PKEY_free(rsa);
  return pem;
}

const std::string kKey(32, 'k');
const std::string kDigest(32, 'd');

ArtifactClaim Artifact() {
  return ArtifactClaim{kKey, 2, "cpu:x86-64", "toolchain", kDigest, "ptx", "metadata", "log"};
}
AliasClaim Alias() { return AliasClaim{"uid:1000", "ns", "cpu:x86-64", "fast", kKey, "manifest"}; }

}  // namespace

TEST_CASE("a signature verifies against the claim it was made over, and a PEM round trip keeps the key",
          "[signing]") {
  const SigningKey key = NewKey();
  const TrustedKeys trusted = Trust(key.PublicPem());
  const Signature signature = key.Sign(SignedMessage(Artifact()));
  CHECK(signature.public_key == key.public_key());
  CHECK(signature.bytes.size() == kSignatureBytes);
  CHECK(trusted.Verify(signature, SignedMessage(Artifact())).ok());
  CHECK(trusted.ids() == std::vector<std::string>{key.id()});
  CHECK(key.id().starts_with("ed25519:"));
  CHECK(key.id().size() == 8 + 16);

  Expected<SigningKey> reloaded = SigningKey::Parse(key.PrivatePem(), "pem");
  REQUIRE(reloaded.ok());
  CHECK(reloaded->public_key() == key.public_key());
  CHECK(trusted.Verify(reloaded->Sign("m"), "m").ok());
}

TEST_CASE("an artifact's signature covers its key, kind, target, toolchain, payload digest, PTX, metadata and "
          "log",
          "[signing]") {
  const SigningKey key = NewKey();
  const TrustedKeys trusted = Trust(key.PublicPem());
  const Signature signature = key.Sign(SignedMessage(Artifact()));
  const std::string other_key(32, 'x');
  const std::vector<std::function<void(ArtifactClaim&)>> edits = {
      [&](ArtifactClaim& c) { c.key = other_key; },    [](ArtifactClaim& c) { c.kind = 1; },
      [](ArtifactClaim& c) { c.target = "cpu:znver4"; }, [](ArtifactClaim& c) { c.toolchain = "other"; },
      [](ArtifactClaim& c) { c.payload_digest = "x"; },  [](ArtifactClaim& c) { c.ptx = "ptx2"; },
      [](ArtifactClaim& c) { c.metadata = ""; },         [](ArtifactClaim& c) { c.compile_log = "log2"; }};
  for (std::size_t i = 0; i < edits.size(); ++i) {
    INFO("edit " << i);
    ArtifactClaim claim = Artifact();
    edits[i](claim);
    const Status s = trusted.Verify(signature, SignedMessage(claim));
    CHECK(s.code() == Code::kUnauthenticated);
    CHECK_THAT(s.message(), Catch::Contains("does not cover this key and content"));
  }
  // Fields are length-prefixed: moving bytes from one field to the next is another claim.
  ArtifactClaim a = Artifact(), b = Artifact();
  a.target = "cpu:x86-64t";
  a.toolchain = "oolchain";
  CHECK(SignedMessage(a) != SignedMessage(b));
}

TEST_CASE("an alias's signature covers its tenant, namespace, target, fast key, artifact and manifest, and is "
          "never an artifact's",
          "[signing]") {
  const SigningKey key = NewKey();
  const TrustedKeys trusted = Trust(key.PublicPem());
  const Signature signature = key.Sign(SignedMessage(Alias()));
  CHECK(trusted.Verify(signature, SignedMessage(Alias())).ok());
  const std::string other_key(32, 'x');
  const std::vector<std::function<void(AliasClaim&)>> edits = {
      [](AliasClaim& c) { c.tenant = "uid:0"; },  [](AliasClaim& c) { c.ns = "other"; },
      [](AliasClaim& c) { c.target = "cpu:znver4"; }, [](AliasClaim& c) { c.fast_key = "fast2"; },
      [&](AliasClaim& c) { c.artifact_key = other_key; }, [](AliasClaim& c) { c.manifest = ""; }};
  for (std::size_t i = 0; i < edits.size(); ++i) {
    INFO("edit " << i);
    AliasClaim claim = Alias();
    edits[i](claim);
    CHECK(trusted.Verify(signature, SignedMessage(claim)).code() == Code::kUnauthenticated);
  }
  CHECK(SignedMessage(Alias()).substr(0, 22) != SignedMessage(Artifact()).substr(0, 22));
}

TEST_CASE("a signature by a key not in the set, or a mangled one, is refused naming why", "[signing]") {
  const SigningKey trusted_key = NewKey();
  const SigningKey stranger = NewKey();
  const TrustedKeys trusted = Trust(trusted_key.PublicPem());
  const Status foreign = trusted.Verify(stranger.Sign("m"), "m");
  CHECK(foreign.code() == Code::kUnauthenticated);
  CHECK_THAT(foreign.message(), Catch::Contains(stranger.id()) && Catch::Contains("not a trusted key"));
  Signature bad = trusted_key.Sign("m");
  bad.bytes[10] = static_cast<char>(bad.bytes[10] ^ 1);
  CHECK(trusted.Verify(bad, "m").code() == Code::kUnauthenticated);
  bad.bytes.resize(10);
  CHECK(trusted.Verify(bad, "m").code() == Code::kUnauthenticated);
  Signature short_key = trusted_key.Sign("m");
  short_key.public_key.resize(5);
  CHECK_THAT(trusted.Verify(short_key, "m").message(), Catch::Contains("a malformed key"));
}

TEST_CASE("the signature policy: nothing checked without keys, unsigned refused unless not required",
          "[signing]") {
  const SigningKey key = NewKey();
  const SigningKey stranger = NewKey();
  SignaturePolicy none;
  CHECK_FALSE(none.checks());
  CHECK(none.Check(std::nullopt, "m").ok());
  CHECK(none.Check(stranger.Sign("m"), "other").ok());

  SignaturePolicy strict{std::make_shared<const TrustedKeys>(Trust(key.PublicPem())), true};
  CHECK(strict.Check(key.Sign("m"), "m").ok());
  CHECK(strict.Check(std::nullopt, "m").code() == Code::kUnauthenticated);
  CHECK(strict.Check(stranger.Sign("m"), "m").code() == Code::kUnauthenticated);

  SignaturePolicy lenient{strict.trusted, false};
  CHECK(lenient.Check(std::nullopt, "m").ok());
  CHECK(lenient.Check(stranger.Sign("m"), "m").code() == Code::kUnauthenticated);
  CHECK(lenient.Check(key.Sign("m"), "n").code() == Code::kUnauthenticated);
}

TEST_CASE("a trusted keys file holds PEM public keys and comments, and refuses private, RSA or stray text",
          "[signing]") {
  const SigningKey a = NewKey(), b = NewKey();
  const TrustedKeys both = Trust("# fleet writers\n\n" + a.PublicPem() + "\n" + b.PublicPem() + a.PublicPem());
  CHECK(both.size() == 2);  // a key listed twice is kept once
  CHECK(both.Verify(b.Sign("m"), "m").ok());

  const auto refused = [](const std::string& text) {
    Expected<TrustedKeys> keys = TrustedKeys::Parse(text, "keys.pem");
    REQUIRE_FALSE(keys.ok());
    CHECK(keys.status().code() == Code::kInvalidArgument);
    return keys.status().message();
  };
  CHECK_THAT(refused(a.PrivatePem()), Catch::Contains("keys.pem:1: a private key"));
  CHECK_THAT(refused(RsaPublicPem()), Catch::Contains("rsaEncryption") || Catch::Contains("RSA"));
  CHECK_THAT(refused("hello\n"), Catch::Contains("keys.pem:1: expected"));
  CHECK_THAT(refused(""), Catch::Contains("holds no public key"));
  CHECK_THAT(refused("# only a comment\n"), Catch::Contains("holds no public key"));
  std::string cut = a.PublicPem();
  cut.resize(cut.find("-----END"));
  CHECK_THAT(refused(cut), Catch::Contains("without"));
  std::string garbled = a.PublicPem();
  garbled[40] = garbled[40] == 'A' ? 'B' : 'A';
  garbled[41] = '!';
  CHECK_THAT(refused(garbled), Catch::Contains("not a valid PEM public key"));
}

TEST_CASE("trusted keys load from a file or a directory that others cannot write", "[signing]") {
  Scratch dir;
  const SigningKey a = NewKey(), b = NewKey();
  const std::string file = dir.File("one.pem", a.PublicPem(), 0644);
  REQUIRE(TrustedKeys::Load(file).ok());
  REQUIRE(::chmod(file.c_str(), 0664) == 0);
  Expected<TrustedKeys> writable = TrustedKeys::Load(file);
  REQUIRE_FALSE(writable.ok());
  CHECK_THAT(writable.status().message(), Catch::Contains("writable by group or others"));

  const std::string keys = dir / "keys";
  REQUIRE(::mkdir(keys.c_str(), 0755) == 0);
  REQUIRE(::chmod(keys.c_str(), 0755) == 0);
  Expected<TrustedKeys> empty = TrustedKeys::Load(keys);
  REQUIRE_FALSE(empty.ok());
  CHECK_THAT(empty.status().message(), Catch::Contains("holds no *.pem or *.pub file"));
  dir.File("keys/old.pem", a.PublicPem(), 0644);
  dir.File("keys/new.pub", b.PublicPem(), 0644);
  dir.File("keys/README", "not a key", 0644);
  dir.File("keys/.hidden.pem", "not a key either", 0644);
  REQUIRE(::mkfifo((keys + "/pipe.pem").c_str(), 0644) == 0);
  Expected<TrustedKeys> rotated = TrustedKeys::Load(keys);
  INFO(rotated.status().ToString());
  REQUIRE(rotated.ok());
  CHECK(rotated->size() == 2);
  CHECK(rotated->Verify(a.Sign("m"), "m").ok());
  CHECK(rotated->Verify(b.Sign("m"), "m").ok());

  REQUIRE(::chmod(keys.c_str(), 0777) == 0);
  Expected<TrustedKeys> open_dir = TrustedKeys::Load(keys);
  REQUIRE_FALSE(open_dir.ok());
  CHECK_THAT(open_dir.status().message(), Catch::Contains("directory") && Catch::Contains("chmod go-w"));
  REQUIRE(::chmod(keys.c_str(), 0755) == 0);
  dir.File("keys/broken.pem", "garbage\n", 0644);
  Expected<TrustedKeys> broken = TrustedKeys::Load(keys);
  REQUIRE_FALSE(broken.ok());
  CHECK_THAT(broken.status().message(), Catch::Contains("broken.pem:1"));
  CHECK(TrustedKeys::Load(dir / "missing").status().code() == Code::kNotFound);
}

TEST_CASE("a signing key file must be private, unencrypted and Ed25519", "[signing]") {
  Scratch dir;
  const SigningKey key = NewKey();
  const std::string file = dir.File("key.pem", key.PrivatePem(), 0600);
  Expected<SigningKey> loaded = SigningKey::Load(file);
  REQUIRE(loaded.ok());
  CHECK(loaded->public_key() == key.public_key());

  REQUIRE(::chmod(file.c_str(), 0640) == 0);
  Expected<SigningKey> open = SigningKey::Load(file);
  REQUIRE_FALSE(open.ok());
  CHECK(open.status().code() == Code::kFailedPrecondition);
  CHECK_THAT(open.status().message(), Catch::Contains("chmod 600"));

  CHECK_THAT(SigningKey::Parse(key.PublicPem(), "pub").status().message(), Catch::Contains("holds a public key"));
  CHECK_THAT(SigningKey::Parse("-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----\n",
                               "enc").status().message(),
             Catch::Contains("passphrase"));
  CHECK(SigningKey::Parse("nothing", "x").status().code() == Code::kInvalidArgument);
  CHECK(SigningKey::Load(dir / "missing").status().code() == Code::kNotFound);
}

TEST_CASE("a new key pair is written only where nothing is, and never over a file or link", "[signing]") {
  Scratch dir;
  const SigningKey key = NewKey();
  const std::string path = dir / "fleet.pem";
  REQUIRE(WriteNewKeyPair(key, path).ok());
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  REQUIRE(::stat((path + ".pub").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0644);
  CHECK(SigningKey::Load(path)->public_key() == key.public_key());
  CHECK(TrustedKeys::Load(path + ".pub")->ids() == std::vector<std::string>{key.id()});

  // Again: refused, both files untouched.
  const std::string before = key.PrivatePem();
  const Status again = WriteNewKeyPair(NewKey(), path);
  CHECK(again.code() == Code::kAlreadyExists);
  CHECK(SigningKey::Load(path)->public_key() == key.public_key());

  // A user's file at the .pub name: nothing is created, the file is kept.
  const std::string user = dir.File("other.pem.pub", "mine", 0644);
  CHECK(WriteNewKeyPair(key, dir / "other.pem").code() == Code::kAlreadyExists);
  CHECK_FALSE(std::filesystem::exists(dir / "other.pem"));
  // A symbolic link at the private name is never followed.
  std::filesystem::create_symlink(user, dir / "link.pem");
  CHECK(WriteNewKeyPair(key, dir / "link.pem").code() == Code::kAlreadyExists);
  CHECK_FALSE(std::filesystem::exists(dir / "link.pem.pub"));
  std::ifstream in(user);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(text == "mine");
  CHECK(WriteNewKeyPair(key, dir / "no/such/dir.pem").code() == Code::kNotFound);
}
