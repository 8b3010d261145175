// "Did you mean ...?": the known name closest to a mistyped one, shared by
// every message that suggests one (the CLI's commands and options, CPU
// names and features in target errors).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace qdcache {

// The candidate closest to `word` by edit distance (insertions, deletions,
// substitutions), when close enough to be a plausible typo: at most a third
// of the word's length, and at most 2 for short words. The first of equally
// close ones; none when nothing is that close.
[[nodiscard]] std::optional<std::string> NearestName(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace qdcache
