// Expected<T>: a value or a non-OK Status. Construct from a T for success or
// from a Status for failure (constructing from an OK Status is a programming
// error and is turned into INTERNAL so it can never masquerade as a value).
#pragma once

#include <utility>
#include <variant>

#include "common/status.h"

namespace qdcache {

template <typename T>
class [[nodiscard]] Expected {
 public:
  Expected(T value) : v_(std::move(value)) {}  // NOLINT: implicit by design
  Expected(Status status) : v_(std::move(status)) {  // NOLINT: implicit by design
    if (std::get<Status>(v_).ok()) v_ = Status(Code::kInternal, "Expected built from OK status");
  }

  [[nodiscard]] bool ok() const { return std::holds_alternative<T>(v_); }
  explicit operator bool() const { return ok(); }

  // Precondition: ok().
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  // OK when holding a value.
  [[nodiscard]] Status status() const { return ok() ? Status::Ok() : std::get<Status>(v_); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace qdcache

#define QDC_CONCAT_INNER(a, b) a##b
#define QDC_CONCAT(a, b) QDC_CONCAT_INNER(a, b)
// QDC_ASSIGN_OR_RETURN(auto x, MakeX()); returns the Status on failure.
#define QDC_ASSIGN_OR_RETURN(lhs, expr) \
  QDC_ASSIGN_OR_RETURN_IMPL(QDC_CONCAT(qdc_expected_, __LINE__), lhs, expr)
#define QDC_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                              \
  if (!tmp.ok()) return tmp.status();             \
  lhs = std::move(tmp).value()
