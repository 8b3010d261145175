#include "client/cli/warm.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <thread>

#include "client/cli/output.h"

namespace qdcache::cli {
namespace {

// IR per batch: about this much (or one larger kernel), well under the
// daemon's default message limit of 256 MiB.
constexpr std::uintmax_t kBatchIrBytes = 32u << 20;
constexpr auto kProgressEvery = std::chrono::milliseconds(100);

class WarmRun {
 public:
  WarmRun(client::Client& client, const std::vector<ManifestEntry>& entries,
          const WarmOptions& options)
      : client_(client), entries_(entries), options_(options), outcomes_(entries.size()) {}

  std::vector<WarmOutcome> Run(const std::function<void(const WarmCounts&)>& on_progress) {
    const int jobs = std::max(1, options_.jobs);
    running_ = jobs;
    std::vector<std::thread> workers;
    for (int j = 0; j < jobs; ++j) workers.emplace_back([this] { Work(); });
    {
      std::unique_lock<std::mutex> lock(mu_);
      while (running_ > 0) {
        cv_.wait_for(lock, kProgressEvery, [this] { return running_ == 0; });
        const WarmCounts snapshot = counts_;
        lock.unlock();
        on_progress(snapshot);
        lock.lock();
      }
    }
    for (std::thread& t : workers) t.join();
    on_progress(counts_);
    return std::move(outcomes_);
  }

 private:
  // The next batch's entry indexes: up to options_.batch entries and about
  // kBatchIrBytes of IR. Empty when none is left or sending has stopped.
  std::vector<std::size_t> Claim() {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<std::size_t> batch;
    if (stopped_) return batch;
    std::uintmax_t bytes = 0;
    while (next_ < entries_.size() &&
           batch.size() < static_cast<std::size_t>(std::max(1, options_.batch))) {
      std::error_code ec;
      const std::uintmax_t size = std::filesystem::file_size(entries_[next_].ir_path, ec);
      if (!ec && !batch.empty() && bytes + size > kBatchIrBytes) break;
      if (!ec) bytes += size;
      batch.push_back(next_++);
    }
    return batch;
  }

  void Work() {
    for (std::vector<std::size_t> batch = Claim(); !batch.empty(); batch = Claim()) Send(batch);
    std::lock_guard<std::mutex> lock(mu_);
    --running_;
    cv_.notify_all();
  }

  // One Compile call for `batch`, the IR read now.
  void Send(const std::vector<std::size_t>& batch) {
    v1::CompileRequest request;
    std::vector<std::size_t> sent;
    for (std::size_t i : batch) {
      v1::KernelDescriptor* d = request.add_kernels();
      *d = entries_[i].descriptor;
      if (Status read = ReadFile(entries_[i].ir_path, d->mutable_ir()); !read.ok()) {
        request.mutable_kernels()->RemoveLast();
        Finish(i, v1::CACHE_STATUS_ERROR, read);
        continue;
      }
      sent.push_back(i);
    }
    if (sent.empty()) return;
    Expected<v1::CompileResponse> response = client_.Compile(
        std::move(request), options_.call_deadline ? client::Client::Deadline::kTimeout
                                                   : client::Client::Deadline::kNone);
    if (!response.ok()) {
      const Status& error = response.status();
      // Too many kernels (--max-batch) or too large a message: two smaller calls,
      // each reading its IR again (no second copy held meanwhile).
      if (error.code() == Code::kResourceExhausted && sent.size() > 1) {
        const auto middle = sent.begin() + static_cast<std::ptrdiff_t>(sent.size() / 2);
        Send(std::vector<std::size_t>(sent.begin(), middle));
        Send(std::vector<std::size_t>(middle, sent.end()));
        return;
      }
      for (std::size_t i : sent) Finish(i, v1::CACHE_STATUS_ERROR, error);
      // One kernel too large fails alone; anything else (daemon gone, no
      // permission) would fail every batch after it.
      if (error.code() != Code::kResourceExhausted) Stop();
      return;
    }
    if (response->results_size() != static_cast<int>(sent.size())) {
      const Status wrong = Internal("daemon answered " + std::to_string(response->results_size()) +
                                    " results for " + std::to_string(sent.size()) + " kernels");
      for (std::size_t i : sent) Finish(i, v1::CACHE_STATUS_ERROR, wrong);
      return;
    }
    for (std::size_t k = 0; k < sent.size(); ++k) {
      const v1::CompileResult& r = response->results(static_cast<int>(k));
      Status error;
      if (r.has_error()) {
        error = Status(static_cast<Code>(r.error().code()), r.error().message());
      } else if (!CountsAsCompiled(r.status()) && !CountsAsCached(r.status())) {
        error = Internal("daemon answered " + CacheStatusName(r.status()));
      }
      Finish(sent[k], r.status(), error);
    }
  }

  void Finish(std::size_t i, v1::CacheStatus status, const Status& error) {
    WarmOutcome& o = outcomes_[i];  // this entry is this thread's alone
    o.attempted = true;
    o.status = status;
    o.error =
        error.ok() && status == v1::CACHE_STATUS_ERROR ? Status(Code::kUnknown, "failed") : error;
    std::lock_guard<std::mutex> lock(mu_);
    ++counts_.done;
    if (!o.error.ok()) {
      ++counts_.failed;
    } else if (CountsAsCompiled(status)) {
      ++counts_.compiled;
    } else {
      ++counts_.cached;
    }
    cv_.notify_all();
  }

  void Stop() {
    std::lock_guard<std::mutex> lock(mu_);
    stopped_ = true;
  }

  client::Client& client_;
  const std::vector<ManifestEntry>& entries_;
  const WarmOptions options_;
  std::vector<WarmOutcome> outcomes_;  // element i written only by the thread that claimed entry i

  std::mutex mu_;
  std::condition_variable cv_;
  std::size_t next_ = 0;  // guarded by mu_
  bool stopped_ = false;  // guarded by mu_
  int running_ = 0;       // guarded by mu_
  WarmCounts counts_;     // guarded by mu_
};

}  // namespace

bool CountsAsCompiled(v1::CacheStatus status) {
  return status == v1::CACHE_STATUS_COMPILED || status == v1::CACHE_STATUS_COALESCED;
}

bool CountsAsCached(v1::CacheStatus status) {
  return status == v1::CACHE_STATUS_HIT || status == v1::CACHE_STATUS_STAGE_HIT ||
         status == v1::CACHE_STATUS_ALIAS_HIT;
}

std::vector<WarmOutcome> Warm(client::Client& client, const std::vector<ManifestEntry>& entries,
                              const WarmOptions& options,
                              const std::function<void(const WarmCounts&)>& on_progress) {
  return WarmRun(client, entries, options).Run(on_progress);
}

}  // namespace qdcache::cli
