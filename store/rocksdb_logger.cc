#include "store/rocksdb_logger.h"

#include <spdlog/spdlog.h>

#include <cstdarg>
#include <cstdio>
#include <string>

namespace qdcache::store {
namespace {

spdlog::level::level_enum LevelOf(rocksdb::InfoLogLevel level) {
  switch (level) {
    case rocksdb::InfoLogLevel::WARN_LEVEL:
      return spdlog::level::warn;
    case rocksdb::InfoLogLevel::ERROR_LEVEL:
      return spdlog::level::err;
    case rocksdb::InfoLogLevel::FATAL_LEVEL:
      return spdlog::level::critical;
    default:  // DEBUG, INFO, HEADER
      return spdlog::level::trace;
  }
}

class SpdlogLogger final : public rocksdb::Logger {
 public:
  SpdlogLogger() : rocksdb::Logger(rocksdb::InfoLogLevel::INFO_LEVEL) {}

  void Logv(const char* format, va_list ap) override {
    Logv(rocksdb::InfoLogLevel::INFO_LEVEL, format, ap);
  }

  void Logv(const rocksdb::InfoLogLevel level, const char* format, va_list ap) override {
    if (level < GetInfoLogLevel()) return;
    const spdlog::level::level_enum to = LevelOf(level);
    if (!spdlog::should_log(to)) return;
    char buffer[1024];
    va_list copy;
    va_copy(copy, ap);
    const int n = std::vsnprintf(buffer, sizeof buffer, format, copy);
    va_end(copy);
    if (n < 0) return;
    std::string line;
    if (static_cast<std::size_t>(n) < sizeof buffer) {
      line.assign(buffer, static_cast<std::size_t>(n));
    } else {
      line.resize(static_cast<std::size_t>(n) + 1);
      std::vsnprintf(line.data(), line.size(), format, ap);
      line.resize(static_cast<std::size_t>(n));
    }
    while (!line.empty() && line.back() == '\n') line.pop_back();
    spdlog::log(to, "rocksdb: {}", line);
  }

 protected:
  rocksdb::Status CloseImpl() override { return rocksdb::Status::OK(); }
};

}  // namespace

std::shared_ptr<rocksdb::Logger> MakeSpdlogLogger() { return std::make_shared<SpdlogLogger>(); }

}  // namespace qdcache::store
