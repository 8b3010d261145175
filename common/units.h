// Human spellings of sizes and durations, shared by the daemon's flags and
// the CLI: "10G", "512M", "1048576" / "30s", "7d", "12h".
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/expected.h"

namespace qdcache {

// A byte count with an optional K/M/G/T suffix (binary: 1K = 1024),
// optionally followed by "B" or "iB"; "B" alone is bytes ("1536B"), as is a
// bare number. Overflow of uint64 is INVALID_ARGUMENT.
[[nodiscard]] Expected<std::uint64_t> ParseByteSize(std::string_view text);
// The same for text a person typed where a bare number is ambiguous (flags,
// environment variables, `qdcache trim --max-size`): a number without a
// unit is INVALID_ARGUMENT ("did you mean 10G?"), except 0. Numbers meant
// as bytes (TOML integers, the C ABI's max-message-bytes) use ParseByteSize.
[[nodiscard]] Expected<std::uint64_t> ParseSizeWithUnit(std::string_view text);

// The longest duration the parsers accept: 100 years. Deadlines computed
// from it (now + duration, in nanoseconds) cannot overflow.
inline constexpr std::chrono::seconds kMaxDuration{100ll * 365 * 86400};

// A whole number with a unit s/m/h/d/w (seconds if none), at most
// kMaxDuration.
[[nodiscard]] Expected<std::chrono::seconds> ParseDuration(std::string_view text);

// A whole number in [min, max], digits only: INVALID_ARGUMENT "expected a
// whole number from MIN to MAX, got "TEXT"" otherwise.
[[nodiscard]] Expected<std::uint64_t> ParseCount(std::string_view text, std::uint64_t min, std::uint64_t max);

// true/yes/on/1 or false/no/off/0, in any case.
[[nodiscard]] Expected<bool> ParseBool(std::string_view text);

// The shortest exact spelling ParseByteSize reads back: 10737418240 -> "10G",
// 1536 -> "1536B" (not a whole number of K), 1024 -> "1K", 0 -> "0".
[[nodiscard]] std::string FormatByteSize(std::uint64_t bytes);

// The shortest exact spelling ParseDuration reads back: 600s -> "10m",
// 90s -> "90s", 0 -> "0s".
[[nodiscard]] std::string FormatDuration(std::chrono::seconds duration);

// Like ParseDuration, with "ms" accepted too and a millisecond result
// ("200ms", "2s", "1m"; seconds if no unit).
[[nodiscard]] Expected<std::chrono::milliseconds> ParseDurationMillis(std::string_view text);

}  // namespace qdcache
