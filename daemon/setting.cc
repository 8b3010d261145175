#include "daemon/setting.h"

#include <cstdlib>
#include <limits>

#include "common/units.h"

namespace qdcache::daemon {
namespace {

std::string Quote(std::string_view text) { return "\"" + std::string(text) + "\""; }

template <class T>
Setting CountSettingOf(std::string name, std::string help, T DaemonOptions::*field, T min, T max) {
  Setting s{.name = std::move(name), .help = std::move(help), .kind = ValueKind::kInteger};
  s.apply = [field, min, max](std::string_view text, DaemonOptions& o) -> Status {
    // Counts are never negative: CountSetting refuses a negative min.
    Expected<std::uint64_t> value =
        ParseCount(text, static_cast<std::uint64_t>(min), static_cast<std::uint64_t>(max));
    if (!value.ok()) return value.status();
    o.*field = static_cast<T>(*value);
    return Status::Ok();
  };
  s.show = [field](const DaemonOptions& o) { return std::to_string(o.*field); };
  return s;
}

}  // namespace

std::string EnvName(std::string_view setting_name) {
  std::string env = "QDCACHED_";
  for (char c : setting_name) {
    env += c == '-' ? '_' : (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c;
  }
  return env;
}

Setting StringSetting(std::string name, std::string help, std::string DaemonOptions::*field) {
  Setting s{.name = std::move(name), .help = std::move(help), .kind = ValueKind::kString};
  s.apply = [field](std::string_view text, DaemonOptions& o) {
    o.*field = std::string(text);
    return Status::Ok();
  };
  s.show = [field](const DaemonOptions& o) { return o.*field; };
  return s;
}

Setting ChoiceSetting(std::string name, std::string help, std::string DaemonOptions::*field,
                      std::vector<std::string> choices) {
  Setting s = StringSetting(std::move(name), std::move(help), field);
  s.apply = [field, choices = std::move(choices)](std::string_view text, DaemonOptions& o) -> Status {
    std::string list;
    for (const std::string& c : choices) {
      if (c == text) {
        o.*field = c;
        return Status::Ok();
      }
      list += (list.empty() ? "" : ", ") + c;
    }
    return InvalidArgument(Quote(text) + " is not one of " + list);
  };
  return s;
}

Setting BoolSetting(std::string name, std::string help, bool DaemonOptions::*field) {
  Setting s{.name = std::move(name), .help = std::move(help), .kind = ValueKind::kBool};
  s.apply = [field](std::string_view text, DaemonOptions& o) -> Status {
    QDC_ASSIGN_OR_RETURN(o.*field, ParseBool(text));
    return Status::Ok();
  };
  s.show = [field](const DaemonOptions& o) { return std::string(o.*field ? "true" : "false"); };
  return s;
}

Setting CountSetting(std::string name, std::string help, unsigned DaemonOptions::*field, unsigned min,
                     unsigned max) {
  return CountSettingOf(std::move(name), std::move(help), field, min, max);
}

Setting CountSetting(std::string name, std::string help, std::size_t DaemonOptions::*field, std::size_t min,
                     std::size_t max) {
  return CountSettingOf(std::move(name), std::move(help), field, min, max);
}

Setting CountSetting(std::string name, std::string help, int DaemonOptions::*field, int min, int max) {
  if (min < 0) std::abort();  // a programming error in the settings table (ParseCount reads no sign)
  return CountSettingOf(std::move(name), std::move(help), field, min, max);
}

std::string_view KindName(ValueKind kind) {
  switch (kind) {
    case ValueKind::kString: return "text";
    case ValueKind::kBool: return "boolean";
    case ValueKind::kInteger: return "integer";
    case ValueKind::kSize: return "size";
    case ValueKind::kDuration: return "duration";
  }
  return "text";
}

Setting SizeSetting(std::string name, std::string help, std::uint64_t DaemonOptions::*field, std::uint64_t min,
                    std::uint64_t max, bool zero_means_none) {
  Setting s{.name = std::move(name), .help = std::move(help), .kind = ValueKind::kSize};
  s.apply = [field, min, max, zero_means_none](std::string_view text, DaemonOptions& o) -> Status {
    QDC_ASSIGN_OR_RETURN(const std::uint64_t bytes, ParseSizeWithUnit(text));
    if ((bytes < min || bytes > max) && !(bytes == 0 && zero_means_none)) {
      std::string range = max == std::numeric_limits<std::uint64_t>::max()
                              ? "at least " + FormatByteSize(min)
                              : "from " + FormatByteSize(min) + " to " + FormatByteSize(max);
      return InvalidArgument("expected a size " + range + (zero_means_none ? " (or 0 for none)" : "") +
                             ", got " + Quote(text));
    }
    o.*field = bytes;
    return Status::Ok();
  };
  s.show = [field](const DaemonOptions& o) { return FormatByteSize(o.*field); };
  return s;
}

Setting DurationSetting(std::string name, std::string help, std::chrono::seconds DaemonOptions::*field) {
  Setting s{.name = std::move(name), .help = std::move(help), .kind = ValueKind::kDuration};
  s.apply = [field](std::string_view text, DaemonOptions& o) -> Status {
    QDC_ASSIGN_OR_RETURN(o.*field, ParseDuration(text));
    return Status::Ok();
  };
  s.show = [field](const DaemonOptions& o) { return FormatDuration(o.*field); };
  return s;
}

Setting MillisSetting(std::string name, std::string help, std::chrono::milliseconds DaemonOptions::*field,
                      bool positive) {
  Setting s{.name = std::move(name), .help = std::move(help), .kind = ValueKind::kDuration};
  s.apply = [field, positive](std::string_view text, DaemonOptions& o) -> Status {
    QDC_ASSIGN_OR_RETURN(std::chrono::milliseconds value, ParseDurationMillis(text));
    if (positive && value.count() == 0) return InvalidArgument("must be positive (e.g. 200ms)");
    o.*field = value;
    return Status::Ok();
  };
  s.show = [field](const DaemonOptions& o) {
    const std::chrono::milliseconds value = o.*field;
    if (value.count() % 1000 != 0) return std::to_string(value.count()) + "ms";
    return FormatDuration(std::chrono::duration_cast<std::chrono::seconds>(value));
  };
  return s;
}

}  // namespace qdcache::daemon
