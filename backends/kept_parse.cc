#include "backends/kept_parse.h"

#include <atomic>
#include <mutex>
#include <utility>

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

namespace qdcache::compiler {
namespace {

std::mutex mu;
std::unique_ptr<ParsedIr> slot;  // guarded by mu
std::atomic<std::uint64_t> taken_count{0};

}  // namespace

ParsedIr::ParsedIr() = default;

ParsedIr::~ParsedIr() {
  module.reset();
  context.reset();
}

void KeepParse(std::unique_ptr<ParsedIr> parsed) {
  std::unique_ptr<ParsedIr> old;
  std::lock_guard lock(mu);
  old = std::exchange(slot, std::move(parsed));
}

std::unique_ptr<ParsedIr> TakeKeptParse(std::string_view ir) {
  std::unique_ptr<ParsedIr> taken;
  {
    std::lock_guard lock(mu);
    taken = std::move(slot);
  }
  if (taken != nullptr && taken->ir != ir) taken.reset();
  if (taken != nullptr) ++taken_count;
  return taken;
}

void DropKeptParse() {
  std::unique_ptr<ParsedIr> dropped;
  std::lock_guard lock(mu);
  dropped = std::move(slot);
}

bool HoldsKeptParse() {
  std::lock_guard lock(mu);
  return slot != nullptr;
}

std::uint64_t KeptParsesTaken() { return taken_count.load(); }

}  // namespace qdcache::compiler
