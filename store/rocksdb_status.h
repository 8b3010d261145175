// Converting RocksDB statuses to the project's Status. Internal to the store.
#pragma once

#include <rocksdb/status.h>

#include <string>
#include <string_view>

#include "common/status.h"

namespace qdcache::store {

[[nodiscard]] inline Status FromRocks(const rocksdb::Status& s, std::string_view what) {
  if (s.ok()) return Status::Ok();
  std::string message = std::string(what) + ": " + s.ToString();
  if (s.IsCorruption()) return DataLoss(std::move(message));
  if (s.IsInvalidArgument()) return InvalidArgument(std::move(message));
  if (s.IsNotSupported()) return Unimplemented(std::move(message));
  if (s.IsIOError() || s.IsBusy() || s.IsTimedOut() || s.IsTryAgain()) {
    return Unavailable(std::move(message));
  }
  return Internal(std::move(message));
}

}  // namespace qdcache::store
