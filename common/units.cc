#include "common/units.h"

#include <algorithm>
#include <charconv>
#include <cctype>

#include <string>
#include <utility>

namespace qdcache {
namespace {

// Leading decimal digits of `text` as a uint64; `rest` gets what follows.
Expected<std::uint64_t> LeadingNumber(std::string_view text, std::string_view* rest) {
  std::uint64_t value = 0;
  std::size_t i = 0;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
    const std::uint64_t digit = static_cast<std::uint64_t>(text[i] - '0');
    if (value > (UINT64_MAX - digit) / 10) return InvalidArgument("\"" + std::string(text) + "\" is too large");
    value = value * 10 + digit;
  }
  if (i == 0) return InvalidArgument("\"" + std::string(text) + "\" does not start with a number");
  *rest = text.substr(i);
  return value;
}

}  // namespace

Expected<std::uint64_t> ParseByteSize(std::string_view text) {
  std::string_view unit;
  QDC_ASSIGN_OR_RETURN(std::uint64_t value, LeadingNumber(text, &unit));
  int shift = 0;
  if (!unit.empty()) {
    switch (unit.front()) {
      case 'k': case 'K': shift = 10; break;
      case 'm': case 'M': shift = 20; break;
      case 'g': case 'G': shift = 30; break;
      case 't': case 'T': shift = 40; break;
      case 'b': case 'B': break;
      default: return InvalidArgument("unknown size unit in \"" + std::string(text) + "\" (use K, M, G or T)");
    }
    std::string_view tail = shift ? unit.substr(1) : unit;
    if (!(tail.empty() || tail == "B" || tail == "b" || tail == "iB" || tail == "ib")) {
      return InvalidArgument("unknown size unit in \"" + std::string(text) + "\"");
    }
  }
  if (shift && value > (UINT64_MAX >> shift)) return InvalidArgument("\"" + std::string(text) + "\" is too large");
  return value << shift;
}

Expected<std::uint64_t> ParseSizeWithUnit(std::string_view text) {
  QDC_ASSIGN_OR_RETURN(const std::uint64_t bytes, ParseByteSize(text));
  if (bytes != 0 && !text.empty() && text.back() >= '0' && text.back() <= '9') {
    // "10" could be bytes, megabytes or gigabytes depending on who wrote it:
    // a cap of 10 bytes evicts everything at once, silently.
    return InvalidArgument("size \"" + std::string(text) + "\" has no unit: did you mean " + std::string(text) +
                           "G? (K, M, G or T; B for bytes: " + std::string(text) + "B)");
  }
  return bytes;
}

Expected<std::chrono::seconds> ParseDuration(std::string_view text) {
  std::string_view unit;
  QDC_ASSIGN_OR_RETURN(std::uint64_t value, LeadingNumber(text, &unit));
  std::uint64_t scale = 1;
  if (unit == "" || unit == "s") {
    scale = 1;
  } else if (unit == "m") {
    scale = 60;
  } else if (unit == "h") {
    scale = 3600;
  } else if (unit == "d") {
    scale = 86400;
  } else if (unit == "w") {
    scale = 7 * 86400;
  } else {
    return InvalidArgument("unknown duration unit in \"" + std::string(text) + "\" (use s, m, h, d or w)");
  }
  if (value > static_cast<std::uint64_t>(kMaxDuration.count()) / scale) {
    return InvalidArgument("\"" + std::string(text) + "\" is longer than 100 years");
  }
  return std::chrono::seconds(static_cast<std::int64_t>(value * scale));
}

Expected<std::uint64_t> ParseCount(std::string_view text, std::uint64_t min, std::uint64_t max) {
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value < min || value > max) {
    return InvalidArgument("expected a whole number from " + std::to_string(min) + " to " + std::to_string(max) +
                           ", got \"" + std::string(text) + "\"");
  }
  return value;
}

Expected<bool> ParseBool(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  for (std::string_view yes : {"true", "yes", "on", "1"}) {
    if (lower == yes) return true;
  }
  for (std::string_view no : {"false", "no", "off", "0"}) {
    if (lower == no) return false;
  }
  return InvalidArgument("expected true or false (yes/no, on/off, 1/0), got \"" + std::string(text) + "\"");
}

std::string FormatByteSize(std::uint64_t bytes) {
  static constexpr std::pair<int, char> kUnits[] = {{40, 'T'}, {30, 'G'}, {20, 'M'}, {10, 'K'}};
  for (const auto& [shift, suffix] : kUnits) {
    const std::uint64_t unit = std::uint64_t{1} << shift;
    if (bytes != 0 && bytes % unit == 0) return std::to_string(bytes / unit) + suffix;
  }
  return bytes == 0 ? "0" : std::to_string(bytes) + "B";
}

std::string FormatDuration(std::chrono::seconds duration) {
  static constexpr std::pair<std::int64_t, char> kUnits[] = {{7 * 86400, 'w'}, {86400, 'd'}, {3600, 'h'}, {60, 'm'}};
  const std::int64_t s = duration.count();
  for (const auto& [scale, suffix] : kUnits) {
    if (s != 0 && s % scale == 0) return std::to_string(s / scale) + suffix;
  }
  return std::to_string(s) + "s";
}

Expected<std::chrono::milliseconds> ParseDurationMillis(std::string_view text) {
  if (text.size() > 2 && text.substr(text.size() - 2) == "ms") {
    std::string_view unit;
    QDC_ASSIGN_OR_RETURN(std::uint64_t value, LeadingNumber(text, &unit));
    if (unit != "ms") return InvalidArgument("malformed duration \"" + std::string(text) + "\"");
    if (value > static_cast<std::uint64_t>(std::chrono::milliseconds(kMaxDuration).count())) {
      return InvalidArgument("\"" + std::string(text) + "\" is longer than 100 years");
    }
    return std::chrono::milliseconds(static_cast<std::int64_t>(value));
  }
  QDC_ASSIGN_OR_RETURN(std::chrono::seconds seconds, ParseDuration(text));
  return std::chrono::duration_cast<std::chrono::milliseconds>(seconds);
}

}  // namespace qdcache
