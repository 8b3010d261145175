// A compiler for engine tests, with no LLVM: CPU artifacts are
// "artifact:<ir>" (entry point "f"), IR "fail" is an INVALID_ARGUMENT and
// "crash" an INTERNAL compiler crash, an entry point other than "f" is
// refused; IR starting with "bad digest" cannot be keyed (INVALID_ARGUMENT).
// Like the worker pool, every failing call reports one worker used up
// (CallControl::workers_used_up). CUDA PTX is "ptx:<ir>" (entry "k") and the cubin
// "cubin:<ptx>/<max registers>". Compile calls pass a gate that tests may
// Close() to hold them (and Open() to release), digest calls another
// (CloseDigests(), OpenDigests()), and every call is counted. Thread-safe.
#pragma once

#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

#include "common/digest.h"
#include "compiler/compiler.h"

namespace qdcache::engine::testing {

class ScriptedCompiler final : public compiler::Compiler {
 public:
  Expected<compiler::CompileOutput> Compile(const compiler::CompileInput& input,
                                            const compiler::CallControl& control) override {
    {
      std::unique_lock lock(mu_);
      ++calls_;
      cv_.notify_all();  // for WaitForCalls
      cv_.wait(lock, [&] { return open_; });
      if (control.cancel != nullptr && control.cancel->cancelled()) ++saw_cancelled_;
    }
    if (input.ir == "fail") return UsedUp(control, InvalidArgument("1:1: scripted failure"));
    for (const std::string& e : input.entry_points) {  // as the real compiler refuses them
      if (e != "f") return UsedUp(control, InvalidArgument("entry point \"" + e + "\" not found"));
    }
    if (input.ir == "crash") return UsedUp(control, Internal("compiler crashed (SIGSEGV) in scripted worker"));
    compiler::CompileOutput out;
    out.kind = compiler::ArtifactKind::kSharedObject;
    out.payload = "artifact:" + std::string(input.ir);
    out.entries.push_back({"f"});
    return out;
  }
  Expected<Digest> CanonicalIrDigest(std::string_view ir, const compiler::Target&, bool,
                                     const compiler::CallControl& control) override {
    {
      std::unique_lock lock(mu_);
      ++digest_calls_;
      cv_.notify_all();  // for WaitForDigestCalls
      cv_.wait(lock, [&] { return digests_open_; });
    }
    if (ir.substr(0, 10) == "bad digest") return UsedUp(control, InvalidArgument("1:1: scripted parse error"));
    return Sha256(ir);
  }
  // CUDA stages: PTX is "ptx:<ir>", the cubin "cubin:<ptx>/<max_registers>".
  Expected<compiler::PtxOutput> CompileToPtx(const compiler::CompileInput& input,
                                             const compiler::CallControl&) override {
    std::lock_guard lock(mu_);
    ++ptx_calls_;
    compiler::PtxOutput out;
    out.ptx = "ptx:" + std::string(input.ir);
    out.entries.push_back({"k"});
    return out;
  }
  Expected<compiler::CompileOutput> LinkCubin(std::string_view ptx, const std::vector<compiler::EntryInfo>& entries,
                                              const compiler::Target&,
                                              const compiler::CompileOptions& options,
                                              const compiler::CallControl&) override {
    std::lock_guard lock(mu_);
    ++link_calls_;
    compiler::CompileOutput out;
    out.kind = compiler::ArtifactKind::kCubin;
    out.payload = "cubin:" + std::string(ptx) + "/" + std::to_string(options.max_registers);
    out.ptx = std::string(ptx);
    out.entries = entries;
    return out;
  }
  const compiler::ToolchainInfo& toolchain() const override { return info_; }
  int ptx_calls() {
    std::lock_guard lock(mu_);
    return ptx_calls_;
  }
  int link_calls() {
    std::lock_guard lock(mu_);
    return link_calls_;
  }

  void Close() {
    std::lock_guard lock(mu_);
    open_ = false;
  }
  void Open() {
    {
      std::lock_guard lock(mu_);
      open_ = true;
    }
    cv_.notify_all();
  }
  void CloseDigests() {
    std::lock_guard lock(mu_);
    digests_open_ = false;
  }
  void OpenDigests() {
    {
      std::lock_guard lock(mu_);
      digests_open_ = true;
    }
    cv_.notify_all();
  }
  // Blocks until CanonicalIrDigest has been entered `n` times.
  void WaitForDigestCalls(int n) {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return digest_calls_ >= n; });
  }
  int calls() {
    std::lock_guard lock(mu_);
    return calls_;
  }
  // Blocks until Compile has been entered `n` times (it may wait at the gate).
  void WaitForCalls(int n) {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return calls_ >= n; });
  }
  int digest_calls() {
    std::lock_guard lock(mu_);
    return digest_calls_;
  }
  int saw_cancelled() {
    std::lock_guard lock(mu_);
    return saw_cancelled_;
  }

 private:
  static Status UsedUp(const compiler::CallControl& control, Status failure) {
    if (control.workers_used_up != nullptr) ++*control.workers_used_up;
    return failure;
  }

  compiler::ToolchainInfo info_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = true;
  bool digests_open_ = true;
  int calls_ = 0;
  int saw_cancelled_ = 0;
  int ptx_calls_ = 0;
  int link_calls_ = 0;
  int digest_calls_ = 0;
};

}  // namespace qdcache::engine::testing
