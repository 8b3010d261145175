#include "client/cli/progress.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace qdcache::cli {
namespace {

constexpr auto kRedrawEvery = std::chrono::milliseconds(100);
constexpr int kBarWidth = 30;

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

bool Progress::StderrIsTerminal() { return ::isatty(STDERR_FILENO) == 1; }

Progress::Progress(std::string verb, std::uint64_t total_bytes, bool enabled)
    : verb_(std::move(verb)), total_bytes_(total_bytes), enabled_(enabled) {}

Progress::~Progress() { Done(); }

void Progress::Update(std::uint64_t artifacts, std::uint64_t aliases, std::uint64_t bytes) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (drawn_ && now - last_draw_ < kRedrawEvery) return;
  last_draw_ = now;
  drawn_ = true;
  std::string bar;
  if (total_bytes_ > 0) {
    const double fraction =
        std::min(1.0, static_cast<double>(bytes) / static_cast<double>(total_bytes_));
    const int filled = static_cast<int>(fraction * kBarWidth);
    bar = "[" + std::string(filled, '#') + std::string(kBarWidth - filled, ' ') + "] " +
          std::to_string(static_cast<int>(fraction * 100)) + "%  ";
  }
  std::fprintf(stderr, "\r\033[K%s %s%llu artifacts, %llu aliases, %s", verb_.c_str(), bar.c_str(),
               static_cast<unsigned long long>(artifacts), static_cast<unsigned long long>(aliases),
               HumanBytes(bytes).c_str());
  std::fflush(stderr);
}

void Progress::Done() {
  if (!drawn_) return;
  drawn_ = false;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
}

}  // namespace qdcache::cli
