#include "bench/report.h"

#include <algorithm>
#include <cmath>

namespace qdcache::bench {
namespace {

double Rank(const std::vector<double>& sorted, double p) {
  const auto rank = static_cast<std::size_t>(std::ceil(p * static_cast<double>(sorted.size())));
  return sorted[std::clamp<std::size_t>(rank, 1, sorted.size()) - 1];
}

std::string Number(double v) {
  char buf[32];
  if (v != 0 && (std::fabs(v) >= 100000 || std::fabs(v) < 0.01)) {
    std::snprintf(buf, sizeof(buf), "%.3g", v);
  } else {
    std::snprintf(buf, sizeof(buf), "%.2f", v);
  }
  return buf;
}

}  // namespace

Summary Summarize(std::vector<double> samples) {
  Summary s;
  s.n = samples.size();
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  s.p50 = Rank(samples, 0.5);
  s.p99 = Rank(samples, 0.99);
  double sum = 0;
  for (double v : samples) sum += v;
  s.mean = sum / static_cast<double>(samples.size());
  return s;
}

void Report::Compare(const std::string& scenario, const std::string& what, double ours,
                     double baseline, std::optional<double> max_ratio,
                     std::optional<double> min_ratio) {
  Comparison c{scenario, what, ours, baseline, baseline > 0 ? ours / baseline : 0, "", std::nullopt};
  if (max_ratio) {
    c.target = "<= " + Number(*max_ratio);
    c.met = c.ratio <= *max_ratio;
  } else if (min_ratio) {
    c.target = ">= " + Number(*min_ratio);
    c.met = c.ratio >= *min_ratio;
  }
  comparisons_.push_back(std::move(c));
}

void Report::Print(std::FILE* out) const {
  std::fprintf(out, "\n%-14s %-52s %6s %12s %12s %8s\n", "scenario", "figure", "n", "p50", "p99", "unit");
  for (const Figure& f : figures_) {
    std::fprintf(out, "%-14s %-52s %6zu %12s %12s %8s\n", f.scenario.c_str(), f.name.c_str(), f.value.n,
                 Number(f.value.p50).c_str(), Number(f.value.p99).c_str(), f.unit.c_str());
  }
  std::fprintf(out, "\n%-14s %-62s %10s %10s %6s\n", "scenario", "comparison (ours / baseline)", "ratio",
               "target", "met");
  for (const Comparison& c : comparisons_) {
    std::fprintf(out, "%-14s %-62s %10s %10s %6s\n", c.scenario.c_str(), c.what.c_str(),
                 Number(c.ratio).c_str(), c.target.empty() ? "-" : c.target.c_str(),
                 !c.met ? "-" : (*c.met ? "yes" : "NO"));
  }
  if (!notes_.empty()) std::fprintf(out, "\n");
  for (const auto& [scenario, text] : notes_) std::fprintf(out, "%-14s %s\n", scenario.c_str(), text.c_str());
}

nlohmann::json Report::Json() const {
  nlohmann::json figures = nlohmann::json::array();
  for (const Figure& f : figures_) {
    figures.push_back({{"scenario", f.scenario}, {"name", f.name}, {"unit", f.unit}, {"n", f.value.n},
                       {"p50", f.value.p50}, {"p99", f.value.p99}, {"mean", f.value.mean}});
  }
  nlohmann::json comparisons = nlohmann::json::array();
  for (const Comparison& c : comparisons_) {
    nlohmann::json j = {{"scenario", c.scenario}, {"what", c.what}, {"ours", c.ours},
                        {"baseline", c.baseline}, {"ratio", c.ratio}, {"target", c.target}};
    j["met"] = c.met ? nlohmann::json(*c.met) : nlohmann::json(nullptr);
    comparisons.push_back(std::move(j));
  }
  nlohmann::json notes = nlohmann::json::array();
  for (const auto& [scenario, text] : notes_) notes.push_back({{"scenario", scenario}, {"note", text}});
  return {{"figures", figures}, {"comparisons", comparisons}, {"notes", notes}};
}

}  // namespace qdcache::bench
