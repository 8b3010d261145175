#include "engine/failure_budget.h"

#include <iterator>

namespace qdcache::engine {
namespace {

// Forgetting full buckets is a sweep over the map; do it once the map has
// grown this large, so a busy daemon's memory stays bounded by its active
// offenders.
constexpr std::size_t kSweepAt = 1024;

}  // namespace

FailureBudget::FailureBudget(FailureBudgetOptions options, Clock clock)
    : options_(options), clock_(std::move(clock)) {}

std::chrono::steady_clock::time_point FailureBudget::Now() const {
  return clock_ ? clock_() : std::chrono::steady_clock::now();
}

Status FailureBudget::Check(const std::string& tenant, std::chrono::milliseconds* retry_after) {
  if (retry_after != nullptr) *retry_after = std::chrono::milliseconds(0);
  if (options_.burst <= 0) return Status::Ok();
  const auto now = Now();
  std::lock_guard lock(mu_);
  auto it = buckets_.find(tenant);
  if (it == buckets_.end() || it->second.Has(now)) return Status::Ok();
  const auto wait = std::chrono::ceil<std::chrono::milliseconds>(it->second.NextToken(now) - now);
  if (retry_after != nullptr) *retry_after = wait;
  return ResourceExhausted("too many of this client's inputs crashed, hung or were refused by a compile worker "
                           "recently (each costs a new worker process); compiles are refused for " +
                           std::to_string(wait.count()) + " ms more, cache hits are still served");
}

void FailureBudget::Charge(const std::string& tenant, int failures) {
  if (options_.burst <= 0 || failures <= 0) return;
  charged_ += static_cast<std::uint64_t>(failures);
  const auto now = Now();
  std::lock_guard lock(mu_);
  if (buckets_.size() >= kSweepAt) {
    for (auto it = buckets_.begin(); it != buckets_.end();) {
      it = it->second.Full(now) ? buckets_.erase(it) : std::next(it);
    }
  }
  auto it = buckets_.try_emplace(tenant, options_.burst, options_.refill, now).first;
  for (int i = 0; i < failures; ++i) it->second.Charge(now);
}

void FailureBudget::ResetStats() { charged_ = 0; }

}  // namespace qdcache::engine
