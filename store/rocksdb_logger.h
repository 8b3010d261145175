// RocksDB's info log, sent to the daemon's log (spdlog) instead of a LOG file
// in the store directory. Internal to the store.
//
// Why not RocksDB's own LOG file: it lives on the store's filesystem, so on a
// full disk its writer fails, and the next log line RocksDB writes trips an
// assertion in WritableFileWriter (Debian's librocksdb is built with
// assertions on) and aborts the whole daemon; DB::Resume() logs at once, so
// the store could never recover. spdlog writes to stderr or wherever the
// daemon's log goes, and never aborts.
//
// Levels: RocksDB WARN, ERROR and FATAL become spdlog warn, error and
// critical; its chatty INFO, DEBUG and header lines become trace (seen with
// `--log-level trace`).
#pragma once

#include <rocksdb/env.h>

#include <memory>

namespace qdcache::store {

// Thread-safe; may be shared by several databases.
[[nodiscard]] std::shared_ptr<rocksdb::Logger> MakeSpdlogLogger();

}  // namespace qdcache::store
