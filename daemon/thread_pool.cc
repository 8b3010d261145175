#include "daemon/thread_pool.h"

namespace qdcache::daemon {

ThreadPool::ThreadPool(unsigned threads) {
  if (threads == 0) threads = 1;
  threads_.reserve(threads);
  for (unsigned i = 0; i < threads; ++i) threads_.emplace_back([this] { Run(); });
}

ThreadPool::~ThreadPool() { Drain(); }

bool ThreadPool::Submit(std::function<void()> task) {
  {
    std::lock_guard lock(mu_);
    if (draining_) return false;
    queue_.push_back(std::move(task));
  }
  cv_.notify_one();
  return true;
}

void ThreadPool::Drain() {
  {
    std::lock_guard lock(mu_);
    draining_ = true;
  }
  cv_.notify_all();
  for (std::thread& t : threads_) {
    if (t.joinable()) t.join();
  }
}

std::size_t ThreadPool::queued_or_running() const {
  std::lock_guard lock(mu_);
  return queue_.size() + running_;
}

void ThreadPool::Run() {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [this] { return draining_ || !queue_.empty(); });
      if (queue_.empty()) return;  // draining and nothing left
      task = std::move(queue_.front());
      queue_.pop_front();
      ++running_;
    }
    task();
    std::lock_guard lock(mu_);
    --running_;
  }
}

}  // namespace qdcache::daemon
