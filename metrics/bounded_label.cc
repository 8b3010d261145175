#include "metrics/bounded_label.h"

namespace qdcache::metrics {

std::string BoundedLabel::Of(std::string_view value) {
  std::string v(value);
  std::lock_guard lock(mu_);
  if (kept_.contains(v)) return v;
  if (kept_.size() >= max_values_) return std::string(kOtherLabel);
  kept_.insert(v);
  return v;
}

}  // namespace qdcache::metrics
