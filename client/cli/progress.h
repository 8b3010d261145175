// A one-line progress display for long CLI commands (export, import). It
// draws on stderr only when stderr is a terminal, so pipes, logs and CI
// output get just the command's summary line.
//
// Not thread-safe: one thread updates it.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace qdcache::cli {

class Progress {
 public:
  // `verb` leads the line ("exporting"); `total_bytes` 0: no percentage.
  // `enabled`: draw at all (default: stderr is a terminal).
  Progress(std::string verb, std::uint64_t total_bytes, bool enabled = StderrIsTerminal());
  ~Progress();  // Done()
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // Redraws the line, at most every 100 ms, with the counts so far and
  // `bytes` of `total_bytes`.
  void Update(std::uint64_t artifacts, std::uint64_t aliases, std::uint64_t bytes);
  // Erases the line (before the summary is printed).
  void Done();

  [[nodiscard]] static bool StderrIsTerminal();

 private:
  const std::string verb_;
  const std::uint64_t total_bytes_;
  const bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point last_draw_{};
};

// "12.3 MiB", "512 B".
[[nodiscard]] std::string HumanBytes(std::uint64_t bytes);

}  // namespace qdcache::cli
