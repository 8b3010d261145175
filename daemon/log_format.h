// The daemon's log: spdlog's default logger, "qdcached", writing to stderr
// (the journal under systemd, the log file of an auto-started daemon), either
// as text lines (human) or as one JSON object per line (json):
//
//   {"ts":"2025-01-31T12:00:00.123Z","level":"info","logger":"qdcached",
//    "msg":"...","pid":1234,"thread":1240}
//
// ts is RFC 3339 in UTC with milliseconds; level one of trace, debug, info,
// warn, error, critical; thread the kernel's thread id. Any byte of a message
// is written so that the line stays one valid JSON object in valid UTF-8:
// quotes, backslashes and control characters are escaped, and bytes that are
// not well-formed UTF-8 appear as the text "\xNN" (common/utf8.h).
//
// gRPC's own log lines go through the same logger (named "grpc").
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace qdcache::daemon {

struct LogLine {
  std::chrono::system_clock::time_point time;
  std::string_view level;    // "info", ...
  std::string_view logger;   // "qdcached", "grpc"
  std::string_view message;  // any bytes
  long pid = 0;
  std::uint64_t thread = 0;
};

// Appends `line` as one JSON object and a newline.
void AppendJsonLogLine(const LogLine& line, std::string& out);

// Appends `text` as a JSON string, quotes included (see above for bytes).
void AppendJsonString(std::string_view text, std::string& out);

// Installs the default logger on stderr in `format` ("human" or "json") at
// `level` (a --log-level name), and routes gRPC's log through it. Call once,
// before any thread logs.
void SetUpDaemonLog(std::string_view format, std::string_view level);

}  // namespace qdcache::daemon
