#include "store/housekeeper.h"

#include <utility>

namespace qdcache::store {

Housekeeper::Housekeeper(std::chrono::milliseconds flush_interval, Jobs jobs)
    : flush_interval_(flush_interval), jobs_(std::move(jobs)) {
  thread_ = std::thread([this] { Run(); });
}

Housekeeper::~Housekeeper() { Stop(); }

void Housekeeper::RequestPass() {
  std::lock_guard<std::mutex> lock(mu_);
  ++requested_;
  wake_.notify_one();
}

void Housekeeper::RequestPassAndWait() {
  std::unique_lock<std::mutex> lock(mu_);
  const std::uint64_t mine = ++requested_;
  wake_.notify_one();
  pass_done_.wait(lock, [&] { return completed_ >= mine || stopping_; });
}

void Housekeeper::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_ && !thread_.joinable()) return;
    stopping_ = true;
  }
  wake_.notify_all();
  pass_done_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Housekeeper::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  const auto work_pending = [&] { return stopping_ || requested_ > completed_; };
  while (true) {
    if (flush_interval_.count() > 0) {
      wake_.wait_for(lock, flush_interval_, work_pending);
    } else {
      wake_.wait(lock, work_pending);
    }
    if (stopping_) break;
    // Every request made up to now is covered by the pass that starts below:
    // the writes that asked for it committed before asking.
    const std::uint64_t covered = requested_;
    const bool pass = covered > completed_;
    lock.unlock();
    jobs_.flush_access_times();
    if (pass) jobs_.eviction_pass();
    lock.lock();
    if (pass) {
      completed_ = covered;
      pass_done_.notify_all();
    }
  }
  lock.unlock();
  jobs_.flush_access_times();
}

}  // namespace qdcache::store
