#include "common/nearest_name.h"

#include <algorithm>

namespace qdcache {
namespace {

std::size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

std::optional<std::string> NearestName(std::string_view word, const std::vector<std::string>& candidates) {
  const std::size_t limit = std::max<std::size_t>(2, word.size() / 3);
  const std::string* best = nullptr;
  std::size_t best_distance = 0;
  for (const std::string& c : candidates) {
    // The distance is at least the difference in length: a candidate that
    // far off costs nothing, so a huge word costs no more than a short one.
    const std::size_t apart = c.size() > word.size() ? c.size() - word.size() : word.size() - c.size();
    if (apart > limit) continue;
    const std::size_t d = EditDistance(word, c);
    if (best == nullptr || d < best_distance) best = &c, best_distance = d;
  }
  if (best == nullptr || best_distance > limit) return std::nullopt;
  return *best;
}

}  // namespace qdcache
