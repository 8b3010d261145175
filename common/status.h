// Errors as values. A Status is cheap on success (no allocation) and carries
// a code plus a human-readable message on failure. Codes mirror gRPC's so the
// service layer converts them one-to-one at the edge; nothing below the
// service layer depends on gRPC.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>

namespace qdcache {

enum class Code : int {
  kOk = 0,
  kCancelled = 1,
  kUnknown = 2,
  kInvalidArgument = 3,
  kDeadlineExceeded = 4,
  kNotFound = 5,
  kAlreadyExists = 6,
  kPermissionDenied = 7,
  kResourceExhausted = 8,
  kFailedPrecondition = 9,
  kAborted = 10,
  kOutOfRange = 11,
  kUnimplemented = 12,
  kInternal = 13,
  kUnavailable = 14,
  kDataLoss = 15,
  kUnauthenticated = 16,
};

// Name as gRPC spells it ("INVALID_ARGUMENT").
[[nodiscard]] std::string_view CodeName(Code code);

class [[nodiscard]] Status {
 public:
  Status() = default;  // OK
  Status(Code code, std::string message);

  static Status Ok() { return Status(); }

  [[nodiscard]] bool ok() const { return rep_ == nullptr; }
  [[nodiscard]] Code code() const { return rep_ ? rep_->code : Code::kOk; }
  [[nodiscard]] const std::string& message() const;
  // "INVALID_ARGUMENT: message"
  [[nodiscard]] std::string ToString() const;

  // Returns a copy with "context: " prefixed to the message.
  [[nodiscard]] Status WithContext(std::string_view context) const;

 private:
  struct Rep {
    Code code;
    std::string message;
  };
  std::shared_ptr<const Rep> rep_;
};

inline Status InvalidArgument(std::string m) { return {Code::kInvalidArgument, std::move(m)}; }
inline Status NotFound(std::string m) { return {Code::kNotFound, std::move(m)}; }
inline Status FailedPrecondition(std::string m) { return {Code::kFailedPrecondition, std::move(m)}; }
inline Status ResourceExhausted(std::string m) { return {Code::kResourceExhausted, std::move(m)}; }
inline Status Internal(std::string m) { return {Code::kInternal, std::move(m)}; }
inline Status Unavailable(std::string m) { return {Code::kUnavailable, std::move(m)}; }
inline Status DataLoss(std::string m) { return {Code::kDataLoss, std::move(m)}; }
inline Status Cancelled(std::string m) { return {Code::kCancelled, std::move(m)}; }
inline Status DeadlineExceeded(std::string m) { return {Code::kDeadlineExceeded, std::move(m)}; }
inline Status Unimplemented(std::string m) { return {Code::kUnimplemented, std::move(m)}; }

}  // namespace qdcache

// Propagates a non-OK Status from an expression returning Status.
#define QDC_RETURN_IF_ERROR(expr)                 \
  do {                                            \
    ::qdcache::Status qdc_status_ = (expr);       \
    if (!qdc_status_.ok()) return qdc_status_;    \
  } while (0)
