// What a bench run measured: figures (samples summarised as median and
// p99) and the comparisons between them that the targets are stated in,
// printed as a table and written as JSON.
#pragma once

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace qdcache::bench {

struct Summary {
  std::size_t n = 0;
  double p50 = 0;
  double p99 = 0;
  double mean = 0;
};

// Nearest-rank percentiles of `samples` (any order; empty gives zeros).
[[nodiscard]] Summary Summarize(std::vector<double> samples);

struct Figure {
  std::string scenario;  // "1 hit"
  std::string name;      // "lookup over UDS"
  std::string unit;      // "us", "ms", "MB", "hits/s"
  Summary value;
};

// ours / baseline, each a figure's p50 (or another statistic, named in
// `what`). A target is `ratio <= max_ratio` or, for "N times faster" and
// "at least N%" targets, `ratio >= min_ratio`.
struct Comparison {
  std::string scenario;
  std::string what;  // "lookup UDS p50 / raw echo p50"
  double ours = 0;
  double baseline = 0;
  double ratio = 0;
  std::string target;  // "<= 1.5", ">= 0.9", "" when informational
  std::optional<bool> met;
};

class Report {
 public:
  void Add(Figure figure) { figures_.push_back(std::move(figure)); }
  // Adds ours/baseline; `max_ratio` or `min_ratio` (or neither) is the target.
  void Compare(const std::string& scenario, const std::string& what, double ours, double baseline,
               std::optional<double> max_ratio, std::optional<double> min_ratio = std::nullopt);
  void Note(const std::string& scenario, const std::string& text) { notes_.push_back({scenario, text}); }

  // The figures, then the comparisons with their targets, then notes.
  void Print(std::FILE* out) const;
  [[nodiscard]] nlohmann::json Json() const;

 private:
  std::vector<Figure> figures_;
  std::vector<Comparison> comparisons_;
  std::vector<std::pair<std::string, std::string>> notes_;
};

}  // namespace qdcache::bench
