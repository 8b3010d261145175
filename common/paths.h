// Default locations shared by the daemon and its clients, so a zero-config
// client finds a zero-config daemon.
#pragma once

#include <string>

namespace qdcache {

// $XDG_RUNTIME_DIR/qdcached.sock, or /tmp/qdcached-$UID/qdcached.sock.
[[nodiscard]] std::string DefaultSocketPath();

// $XDG_CACHE_HOME/qdcached, or $HOME/.cache/qdcached, or
// /tmp/qdcached-$UID/cache when neither is set.
[[nodiscard]] std::string DefaultStoreDir();

}  // namespace qdcache
