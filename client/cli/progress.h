// A one-line progress display for long CLI commands (export, import, warm,
// verify). It draws on stderr only when stderr is a terminal, so pipes, logs
// and CI output get just the command's summary.
//
// Not thread-safe: one thread at a time updates it (ElapsedTicker's thread,
// while it lives, is that thread).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

namespace qdcache::cli {

class Progress {
 public:
  struct Options {
    // Draw at all (default: stderr is a terminal).
    bool enabled = StderrIsTerminal();
    // Where the line goes (default: stderr, flushed). Each call gets one
    // redraw, starting with "\r\033[K".
    std::function<void(std::string_view)> sink;
    // Redraw at most this often; the first Update always draws.
    std::chrono::milliseconds redraw_every{100};
  };

  // `verb` leads the line ("exporting"). `total`: what Update's `done`
  // counts up to, for a bar and a percentage; 0 when unknown (a spinner
  // instead).
  Progress(std::string verb, std::uint64_t total);
  Progress(std::string verb, std::uint64_t total, Options options);
  ~Progress();  // Done()
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // Redraws the line: verb, bar (or spinner), `detail` ("12 artifacts, 3
  // aliases, 1.2 MiB").
  void Update(std::uint64_t done, std::string_view detail);
  // Erases the line (before the summary is printed).
  void Done();

  [[nodiscard]] bool enabled() const { return options_.enabled; }
  [[nodiscard]] static bool StderrIsTerminal();

 private:
  const std::string verb_;
  const std::uint64_t total_;
  Options options_;
  bool drawn_ = false;
  unsigned spins_ = 0;
  std::chrono::steady_clock::time_point last_draw_{};
};

// While it lives, a thread redraws `progress` with the time elapsed ("12 s"):
// at once, then every 100 ms, for a wait with nothing to count (one unary
// call). Does nothing when the progress is disabled. Destruction stops and
// joins the thread, then erases the line.
class ElapsedTicker {
 public:
  explicit ElapsedTicker(Progress& progress);
  ~ElapsedTicker();
  ElapsedTicker(const ElapsedTicker&) = delete;
  ElapsedTicker& operator=(const ElapsedTicker&) = delete;

 private:
  void Run();

  Progress& progress_;
  const std::chrono::steady_clock::time_point started_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;  // guarded by mu_
  std::thread thread_;
};

// "12.3 MiB", "512 B".
[[nodiscard]] std::string HumanBytes(std::uint64_t bytes);
// "12 s", "3m 05s", "2h 10m".
[[nodiscard]] std::string HumanDuration(std::chrono::seconds elapsed);

}  // namespace qdcache::cli
