// Default locations shared by the daemon and its clients, so a zero-config
// client finds a zero-config daemon.
#pragma once

#include <string>

#include "common/status.h"

namespace qdcache {

// $XDG_RUNTIME_DIR/qdcached.sock, or /tmp/qdcached-$UID/qdcached.sock.
[[nodiscard]] std::string DefaultSocketPath();

// $XDG_CACHE_HOME/qdcached, or $HOME/.cache/qdcached, or
// /tmp/qdcached-$UID/cache when neither is set.
[[nodiscard]] std::string DefaultStoreDir();

// /tmp/qdcached-$UID: the fallback home of the socket and store when the XDG
// directories are not set. Anyone can create it first, so it is trusted only
// when CheckPrivateDir says so.
[[nodiscard]] std::string PrivateTmpDir();

// OK if `dir` is a real directory (not a link) owned by this uid with no
// group/other permissions. When it is missing: created (0700) if `create`,
// else OK (there is nothing in it to trust).
// FAILED_PRECONDITION otherwise: another user could plant a socket or store
// there and have this user's processes load code from it.
[[nodiscard]] Status CheckPrivateDir(const std::string& dir, bool create);

// True if `path` lies directly or deeper inside PrivateTmpDir().
[[nodiscard]] bool InPrivateTmpDir(const std::string& path);

}  // namespace qdcache
