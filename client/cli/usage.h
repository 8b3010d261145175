// Usage errors a user can act on, and shell completion, both made from the
// CLI's own definition (the CLI11 app), so they cannot drift from it:
// an unknown command or option is named with the nearest known one ("did you
// mean 'compile'?"), and `qdcache completion bash` prints a completion
// script listing exactly the commands and options the parser accepts.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace CLI {
class App;
class ParseError;
}  // namespace CLI

namespace qdcache::cli {

// Before parsing: the first word of `args` (argv without the program) that
// is neither an option, an option's value nor a sub-command of `app` — an
// unknown command — as an error message naming it and the nearest command.
[[nodiscard]] std::optional<std::string> UnknownCommand(const CLI::App& app, const std::vector<std::string>& args);

// After a failed parse: CLI11's message, reworded when it is about words
// the command did not expect: each named in order, an option with the
// nearest option of the sub-command (or the global ones).
[[nodiscard]] std::string UsageMessage(const CLI::App& app, const CLI::ParseError& error);

// A bash completion script for `program` (commands, their options, the
// global options anywhere on the line, file names for the rest).
[[nodiscard]] std::string BashCompletion(const CLI::App& app, const std::string& program);

}  // namespace qdcache::cli
