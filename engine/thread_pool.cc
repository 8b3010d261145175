#include "engine/thread_pool.h"

#include <algorithm>

namespace qdcache::engine {

ThreadPool::ThreadPool(unsigned threads, std::size_t max_queue) : max_queue_(max_queue) {
  if (threads == 0) threads = 1;
  threads_.reserve(threads);
  for (unsigned i = 0; i < threads; ++i) threads_.emplace_back([this] { Run(); });
}

ThreadPool::~ThreadPool() { Drain(); }

Status ThreadPool::Submit(std::function<void()> task) {
  {
    std::lock_guard lock(mu_);
    if (draining_) return Unavailable("qdcached is shutting down");
    // Tasks that idle threads are about to take are not waiting.
    const std::size_t idle = threads_.size() - std::min(running_, threads_.size());
    if (queue_.size() >= idle && queue_.size() - idle >= max_queue_) {
      return Unavailable("the compile queue is full (" + std::to_string(queue_.size()) +
                         " compiles waiting, the limit set by --max-queue); retry later");
    }
    queue_.push_back(std::move(task));
  }
  cv_.notify_one();
  return Status::Ok();
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

}  // namespace qdcache::engine
