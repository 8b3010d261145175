#include "tests/support/test_pki.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <vector>

#include "tests/support/subprocess.h"

namespace qdcache::testing {
namespace {

void Openssl(std::vector<std::string> args) {
  args.insert(args.begin(), OpensslBinary());
  RunResult r = Run(args);
  if (r.exit_code != 0) {
    std::string command;
    for (const std::string& a : args) command.append(a).push_back(' ');
    throw std::runtime_error("openssl failed: " + command + "\n" + r.err);
  }
}

const std::vector<std::string> kNewKey = {"-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
                                          "-nodes"};

// A key and a certificate signed by the CA, with `extensions` (x509v3 lines).
void Signed(const std::string& dir, const std::string& name, const std::string& subject,
            const std::string& extensions, const std::string& ca_cert, const std::string& ca_key) {
  const std::string base = dir + "/" + name;
  std::vector<std::string> req = {"req",     "-new",        "-subj", subject,
                                  "-keyout", base + ".key", "-out",  base + ".csr"};
  req.insert(req.begin() + 2, kNewKey.begin(), kNewKey.end());
  Openssl(req);
  WriteFileOrDie(base + ".ext", extensions);
  Openssl({"x509", "-req", "-in", base + ".csr", "-CA", ca_cert, "-CAkey", ca_key, "-set_serial",
           std::to_string(std::hash<std::string>{}(name)&0xffffff), "-days", "2", "-extfile",
           base + ".ext", "-out", base + ".pem"});
}

void SelfSigned(const std::string& dir, const std::string& name, const std::string& subject,
                const std::string& extensions) {
  const std::string base = dir + "/" + name;
  std::vector<std::string> req = {"req", "-x509",   "-subj",       subject, "-days",
                                  "2",   "-keyout", base + ".key", "-out",  base + ".pem"};
  req.insert(req.begin() + 2, kNewKey.begin(), kNewKey.end());
  if (!extensions.empty()) req.insert(req.end(), {"-addext", extensions});
  Openssl(req);
}

}  // namespace

std::string OpensslBinary() {
  const char* path = std::getenv("PATH");
  std::string dirs = path && *path ? path : "/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= dirs.size()) {
    std::size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    const std::string candidate = dirs.substr(start, end - start) + "/openssl";
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return "";
}

TestPki::TestPki(const std::string& dir, const std::string& client_cn) {
  if (OpensslBinary().empty())
    throw std::runtime_error("no openssl on PATH (deploy/install-deps.sh installs it)");
  std::filesystem::create_directories(dir);
  SelfSigned(dir, "ca", "/CN=qdcache test CA", "basicConstraints=critical,CA:TRUE");
  ca_cert = dir + "/ca.pem";
  const std::string ca_key = dir + "/ca.key";
  Signed(dir, "server", "/CN=localhost",
         "basicConstraints=CA:FALSE\nsubjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage="
         "serverAuth\n",
         ca_cert, ca_key);
  server_cert = dir + "/server.pem";
  server_key = dir + "/server.key";
  Signed(dir, "client", "/CN=" + client_cn,
         "basicConstraints=CA:FALSE\nextendedKeyUsage=clientAuth\n", ca_cert, ca_key);
  client_cert = dir + "/client.pem";
  client_key = dir + "/client.key";
  SelfSigned(dir, "self-signed", "/CN=" + client_cn, "extendedKeyUsage=clientAuth");
  self_signed_cert = dir + "/self-signed.pem";
  self_signed_key = dir + "/self-signed.key";
}

}  // namespace qdcache::testing
