#include "daemon/log_format.h"

#include <grpc/support/log.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cstdio>
#include <ctime>
#include <memory>

#include "common/utf8.h"

namespace qdcache::daemon {
namespace {

std::string_view LevelName(spdlog::level::level_enum level) {
  switch (level) {
    case spdlog::level::trace:
      return "trace";
    case spdlog::level::debug:
      return "debug";
    case spdlog::level::info:
      return "info";
    case spdlog::level::warn:
      return "warn";
    case spdlog::level::err:
      return "error";
    case spdlog::level::critical:
      return "critical";
    default:
      return "off";
  }
}

// "2025-01-31T12:00:00.123Z"
void AppendTimestamp(std::chrono::system_clock::time_point t, std::string& out) {
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
  const std::time_t seconds = static_cast<std::time_t>(ms >= 0 ? ms / 1000 : (ms - 999) / 1000);
  const int millis = static_cast<int>(ms - static_cast<long long>(seconds) * 1000);
  std::tm tm{};
  ::gmtime_r(&seconds, &tm);
  char buf[40];
  const std::size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  out.append(buf, n);
  char frac[8];
  std::snprintf(frac, sizeof frac, ".%03dZ", millis);
  out += frac;
}

class JsonFormatter final : public spdlog::formatter {
 public:
  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override {
    std::string line;
    AppendJsonLogLine(
        {msg.time, LevelName(msg.level),
         std::string_view(msg.logger_name.data(), msg.logger_name.size()),
         std::string_view(msg.payload.data(), msg.payload.size()), pid_, msg.thread_id},
        line);
    dest.append(line.data(), line.data() + line.size());
  }
  std::unique_ptr<spdlog::formatter> clone() const override {
    return std::make_unique<JsonFormatter>();
  }

 private:
  const long pid_ = static_cast<long>(::getpid());
};

// gRPC's log function: the same sink and format as ours, logger "grpc".
void LogFromGrpc(gpr_log_func_args* args) {
  static const std::shared_ptr<spdlog::logger> grpc_logger =
      spdlog::default_logger()->clone("grpc");
  const spdlog::level::level_enum level =
      args->severity == GPR_LOG_SEVERITY_ERROR  ? spdlog::level::err
      : args->severity == GPR_LOG_SEVERITY_INFO ? spdlog::level::info
                                                : spdlog::level::debug;
  grpc_logger->log(level, "{}:{}: {}", args->file != nullptr ? args->file : "?", args->line,
                   args->message != nullptr ? args->message : "");
}

}  // namespace

void AppendJsonString(std::string_view text, std::string& out) {
  const std::string valid = ValidUtf8(text);
  out.reserve(out.size() + valid.size() + 2);
  out += '"';
  for (const char c : valid) {
    const auto byte = static_cast<unsigned char>(c);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      default:
        if (byte < 0x20 || byte == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", byte);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

void AppendJsonLogLine(const LogLine& line, std::string& out) {
  out += "{\"ts\":\"";
  AppendTimestamp(line.time, out);
  out += "\",\"level\":";
  AppendJsonString(line.level, out);
  out += ",\"logger\":";
  AppendJsonString(line.logger, out);
  out += ",\"msg\":";
  AppendJsonString(line.message, out);
  out += ",\"pid\":" + std::to_string(line.pid);
  out += ",\"thread\":" + std::to_string(line.thread);
  out += "}\n";
}

void SetUpDaemonLog(std::string_view format, std::string_view level) {
  std::shared_ptr<spdlog::logger> logger;
  if (format == "json") {
    logger = spdlog::stderr_logger_mt("qdcached");
    logger->set_formatter(std::make_unique<JsonFormatter>());
  } else {
    logger = spdlog::stderr_color_mt("qdcached");
  }
  spdlog::set_default_logger(logger);
  spdlog::set_level(spdlog::level::from_str(std::string(level)));
  gpr_set_log_function(&LogFromGrpc);
}

}  // namespace qdcache::daemon
