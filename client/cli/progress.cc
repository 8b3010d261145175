#include "client/cli/progress.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace qdcache::cli {
namespace {

constexpr int kBarWidth = 30;
constexpr std::string_view kSpinner = "|/-\\";

void WriteToStderr(std::string_view text) {
  std::fwrite(text.data(), 1, text.size(), stderr);
  std::fflush(stderr);
}

}  // namespace

std::string HumanBytes(std::uint64_t bytes) {
  static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  char buf[32];
  if (unit == 0) {
    std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(bytes));
  } else {
    std::snprintf(buf, sizeof buf, "%.1f %s", value, kUnits[unit]);
  }
  return buf;
}

std::string HumanDuration(std::chrono::seconds elapsed) {
  const long long s = elapsed.count();
  char buf[48];
  if (s < 60) {
    std::snprintf(buf, sizeof buf, "%lld s", s);
  } else if (s < 3600) {
    std::snprintf(buf, sizeof buf, "%lldm %02llds", s / 60, s % 60);
  } else if (s < 86400) {
    std::snprintf(buf, sizeof buf, "%lldh %02lldm", s / 3600, s % 3600 / 60);
  } else {
    std::snprintf(buf, sizeof buf, "%lldd %02lldh", s / 86400, s % 86400 / 3600);
  }
  return buf;
}

bool Progress::StderrIsTerminal() { return ::isatty(STDERR_FILENO) == 1; }

Progress::Progress(std::string verb, std::uint64_t total)
    : Progress(std::move(verb), total, Options{}) {}

Progress::Progress(std::string verb, std::uint64_t total, Options options)
    : verb_(std::move(verb)), total_(total), options_(std::move(options)) {
  if (!options_.sink) options_.sink = WriteToStderr;
}

Progress::~Progress() { Done(); }

void Progress::Update(std::uint64_t done, std::string_view detail) {
  if (!options_.enabled) return;
  const auto now = std::chrono::steady_clock::now();
  if (drawn_ && now - last_draw_ < options_.redraw_every) return;
  last_draw_ = now;
  drawn_ = true;
  std::string line = "\r\033[K" + verb_ + " ";
  if (total_ > 0) {
    const double fraction = std::min(1.0, static_cast<double>(done) / static_cast<double>(total_));
    const int filled = static_cast<int>(fraction * kBarWidth);
    line += "[" + std::string(filled, '#') + std::string(kBarWidth - filled, ' ') + "] " +
            std::to_string(static_cast<int>(fraction * 100)) + "%  ";
  } else {
    line += kSpinner[spins_++ % kSpinner.size()];
    line += "  ";
  }
  line += detail;
  options_.sink(line);
}

void Progress::Done() {
  if (!drawn_) return;
  drawn_ = false;
  options_.sink("\r\033[K");
}

ElapsedTicker::ElapsedTicker(Progress& progress)
    : progress_(progress), started_(std::chrono::steady_clock::now()) {
  if (progress_.enabled()) thread_ = std::thread([this] { Run(); });
}

ElapsedTicker::~ElapsedTicker() {
  if (thread_.joinable()) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_one();
    thread_.join();
  }
  progress_.Done();
}

void ElapsedTicker::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  // Draws at once (a wait shorter than a tick still shows what it was), then every tick.
  do {
    const auto elapsed = std::chrono::duration_cast<std::chrono::seconds>(
        std::chrono::steady_clock::now() - started_);
    progress_.Update(0, HumanDuration(elapsed));
  } while (!cv_.wait_for(lock, std::chrono::milliseconds(100), [this] { return stop_; }));
}

}  // namespace qdcache::cli
