#include "client/endpoint.h"

#include <sys/stat.h>

#include <cstdlib>

#include "common/file_read.h"
#include "common/paths.h"

namespace qdcache::client {
namespace {

EndpointSources WithDefaults(EndpointSources s) {
  if (!s.getenv) {
    s.getenv = [](const std::string& name) -> std::optional<std::string> {
      const char* v = std::getenv(name.c_str());
      if (v == nullptr || *v == '\0') return std::nullopt;
      return std::string(v);
    };
  }
  if (s.user_socket.empty()) s.user_socket = DefaultSocketPath();
  if (s.system_socket.empty()) s.system_socket = kSystemSocketPath;
  if (!s.exists) {
    s.exists = [](const std::string& path) {
      struct stat st {};
      return ::lstat(path.c_str(), &st) == 0;
    };
  }
  return s;
}

std::string FirstLineTrimmed(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  const std::size_t begin = line.find_first_not_of(" \t\r");
  if (begin == std::string::npos) return "";
  return line.substr(begin, line.find_last_not_of(" \t\r") - begin + 1);
}

// Token and TLS for a TCP endpoint, from the environment where not set.
Status ResolveCredentials(ClientOptions& o, const EndpointSources& s) {
  auto fill = [&](std::string& field, const char* name) {
    if (field.empty()) field = s.getenv(name).value_or("");
  };
  fill(o.tls_ca_file, "QDCACHE_TLS_CA");
  fill(o.tls_cert_file, "QDCACHE_TLS_CERT");
  fill(o.tls_key_file, "QDCACHE_TLS_KEY");
  fill(o.tls_server_name, "QDCACHE_TLS_SERVER_NAME");
  if (!o.token.empty()) return Status::Ok();
  if (std::optional<std::string> token = s.getenv("QDCACHE_TOKEN")) {
    o.token = FirstLineTrimmed(*token);
    return Status::Ok();
  }
  if (std::optional<std::string> file = s.getenv("QDCACHE_TOKEN_FILE")) {
    QDC_ASSIGN_OR_RETURN(o.token, ReadTokenFile(*file, "QDCACHE_TOKEN_FILE " + *file));
  }
  return Status::Ok();
}

}  // namespace

Expected<std::string> ReadTokenFile(const std::string& path, const std::string& what) {
  QDC_ASSIGN_OR_RETURN(std::string text, ReadSmallFile(path, what, 64 << 10));
  std::string token = FirstLineTrimmed(text);
  if (token.empty()) return InvalidArgument(what + " holds no token on its first line");
  return token;
}

Status ResolveEndpoint(ClientOptions& options, EndpointSources given) {
  const EndpointSources s = WithDefaults(std::move(given));
  const bool caller_chose = !options.address.empty() || !options.socket_path.empty();
  if (!caller_chose) {
    const std::optional<std::string> addr = s.getenv("QDCACHE_ADDR");
    const std::optional<std::string> socket = s.getenv("QDCACHE_SOCKET");
    if (addr && socket) {
      return InvalidArgument("both QDCACHE_ADDR and QDCACHE_SOCKET are set; unset one (or pass --addr/--socket)");
    }
    if (addr) options.address = *addr;
    if (socket) options.socket_path = *socket;
  }
  if (!options.address.empty()) return ResolveCredentials(options, s);
  if (options.socket_path.empty()) {
    const bool user_there = s.exists(s.user_socket);
    options.socket_path = !user_there && s.exists(s.system_socket) ? s.system_socket : s.user_socket;
  }
  return Status::Ok();
}

std::string NoDaemonMessage(const std::string& socket, bool stale) {
  return "no qdcached is running at " + socket + (stale ? " (a stale socket: nobody listens)" : "") +
         "; start one with `qdcached --socket " + socket +
         "`, or let the client start it (qdcache --spawn, QDCACHE_AUTOSPAWN=1, Python spawn=True, "
         "C option spawn=1)";
}

}  // namespace qdcache::client
