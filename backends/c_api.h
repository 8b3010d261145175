// Shapes the CUDA toolkit's C APIs (NVRTC, libNVVM, nvJitLink) share: a
// handle created into an out-parameter and destroyed through a pointer to
// it, and text handed out as "ask the size, then copy into a buffer".
#pragma once

#include <cstddef>
#include <string>

namespace qdcache::compiler {

// Owns a handle of type `H` (a pointer) destroyed by `Destroy(&handle)`.
template <typename H, auto Destroy>
class ApiHandle {
 public:
  ApiHandle() = default;
  ApiHandle(const ApiHandle&) = delete;
  ApiHandle& operator=(const ApiHandle&) = delete;
  ~ApiHandle() {
    if (handle_ != nullptr) Destroy(&handle_);
  }
  H* out() { return &handle_; }
  H get() const { return handle_; }

 private:
  H handle_ = nullptr;
};

// The text `size(&n)` and `copy(buffer)` hand out (each true on success),
// cut at its first NUL; empty when either fails or there is none.
template <typename SizeFn, typename CopyFn>
[[nodiscard]] std::string ReadApiText(SizeFn size, CopyFn copy) {
  std::size_t n = 0;
  if (!size(&n) || n == 0) return {};
  std::string text(n, '\0');
  if (!copy(text.data())) return {};
  if (const std::size_t nul = text.find('\0'); nul != std::string::npos) text.resize(nul);
  return text;
}

}  // namespace qdcache::compiler
