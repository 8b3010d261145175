#include "engine/delayed_answers.h"

#include <vector>

namespace qdcache::engine {

DelayedAnswers::DelayedAnswers() : thread_([this] { Run(); }) {}

DelayedAnswers::~DelayedAnswers() {
  Flush();
  thread_.join();
}

void DelayedAnswers::At(Clock::time_point when, std::function<void()> answer) {
  {
    std::lock_guard lock(mu_);
    if (!flushed_) {
      const bool earliest = queue_.empty() || when < queue_.begin()->first;
      queue_.emplace(when, std::move(answer));
      if (earliest) cv_.notify_one();
      return;
    }
  }
  answer();
}

void DelayedAnswers::Flush() {
  std::lock_guard lock(mu_);
  flushed_ = true;
  cv_.notify_one();
}

std::size_t DelayedAnswers::pending() const {
  std::lock_guard lock(mu_);
  return queue_.size();
}

void DelayedAnswers::Run() {
  std::unique_lock lock(mu_);
  for (;;) {
    if (queue_.empty()) {
      if (flushed_) return;
      cv_.wait(lock);
      continue;
    }
    if (!flushed_ && Clock::now() < queue_.begin()->first) {
      cv_.wait_until(lock, queue_.begin()->first);
      continue;
    }
    std::function<void()> answer = std::move(queue_.begin()->second);
    queue_.erase(queue_.begin());
    lock.unlock();
    answer();  // without the lock: it may call At()
    lock.lock();
  }
}

}  // namespace qdcache::engine
