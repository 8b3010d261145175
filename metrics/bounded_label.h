// A metric label whose values come from outside (clients, method names):
// the first `max_values` distinct values are kept as given, every later new
// value reads as "other", so a metric's series stay bounded however many
// values callers make up.
//
// Threads: Of() may be called concurrently.
#pragma once

#include <cstddef>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_set>

namespace qdcache::metrics {

inline constexpr std::string_view kOtherLabel = "other";

class BoundedLabel {
 public:
  explicit BoundedLabel(std::size_t max_values) : max_values_(max_values) {}

  // `value` if it is one of the values kept (or there is room for it), else "other".
  [[nodiscard]] std::string Of(std::string_view value);

 private:
  const std::size_t max_values_;
  std::mutex mu_;
  std::unordered_set<std::string> kept_;  // guarded by mu_
};

}  // namespace qdcache::metrics
