#include "client/cli/usage.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <sstream>

namespace qdcache::cli {
namespace {

std::size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::vector<const CLI::App*> Subcommands(const CLI::App& app) {
  return app.get_subcommands([](const CLI::App*) { return true; });
}

std::vector<std::string> SubcommandNames(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : Subcommands(app)) names.push_back(sub->get_name());
  return names;
}

// "compile, explain, ...": the sub-commands, comma-separated.
std::string CommandList(const CLI::App& app) {
  std::string all;
  for (const std::string& c : SubcommandNames(app)) all += (all.empty() ? "" : ", ") + c;
  return all;
}

// Every spelling of `app`'s options: "--socket", "-o", ...
std::vector<std::string> OptionNames(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::Option* opt : app.get_options()) {
    for (const std::string& n : opt->get_lnames()) names.push_back("--" + n);
    for (const std::string& n : opt->get_snames()) names.push_back("-" + n);
    for (const std::string& n : opt->get_fnames()) {
      if (n.rfind("--", 0) == 0 && std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
    }
  }
  return names;
}

// Whether `word` ("--socket", "-o", "--socket=S") is an option of `app`
// that takes its value from the next word.
bool TakesNextWord(const CLI::App& app, const std::string& word) {
  if (word.find('=') != std::string::npos) return false;
  const CLI::Option* opt = app.get_option_no_throw(word);
  return opt != nullptr && opt->get_type_size_max() > 0 && opt->get_expected_min() > 0;
}

const CLI::App* Chosen(const CLI::App& app) {
  for (const CLI::App* sub : Subcommands(app)) {
    if (sub->parsed()) return sub;
  }
  return nullptr;
}

}  // namespace

std::optional<std::string> Nearest(std::string_view word, const std::vector<std::string>& candidates) {
  const std::string* best = nullptr;
  std::size_t best_distance = 0;
  for (const std::string& c : candidates) {
    const std::size_t d = EditDistance(word, c);
    if (best == nullptr || d < best_distance) best = &c, best_distance = d;
  }
  if (best == nullptr || best_distance > std::max<std::size_t>(2, word.size() / 3)) return std::nullopt;
  return *best;
}

std::optional<std::string> UnknownCommand(const CLI::App& app, const std::vector<std::string>& args) {
  const std::vector<std::string> commands = SubcommandNames(app);
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& word = args[i];
    if (word == "--") return std::nullopt;
    if (word.size() > 1 && word[0] == '-') {
      if (TakesNextWord(app, word)) ++i;
      continue;
    }
    if (std::find(commands.begin(), commands.end(), word) != commands.end()) return std::nullopt;
    std::string message = "unknown command '" + word + "'";
    if (std::optional<std::string> near = Nearest(word, commands)) message += "; did you mean '" + *near + "'?";
    return message + " (commands: " + CommandList(app) + "; qdcache --help)";
  }
  return std::nullopt;
}

std::string UsageMessage(const CLI::App& app, const CLI::ParseError& error) {
  const CLI::App* sub = Chosen(app);
  if (sub == nullptr && dynamic_cast<const CLI::RequiredError*>(&error) != nullptr) {
    return "a command is required (commands: " + CommandList(app) + "; qdcache --help)";
  }
  if (dynamic_cast<const CLI::ExtrasError*>(&error) == nullptr) return error.what();
  std::vector<std::string> extras = app.remaining();
  if (sub != nullptr) {
    std::vector<std::string> more = sub->remaining();
    extras.insert(extras.begin(), more.begin(), more.end());
  }
  std::vector<std::string> options = OptionNames(app);
  if (sub != nullptr) {
    std::vector<std::string> own = OptionNames(*sub);
    options.insert(options.begin(), own.begin(), own.end());
  }
  const std::string where = sub != nullptr ? "`qdcache " + sub->get_name() + "`" : "qdcache";
  for (const std::string& word : extras) {
    if (word.size() > 1 && word[0] == '-') {
      const std::string name = word.substr(0, word.find('='));
      std::string message = "unknown option " + name + " for " + where;
      if (std::optional<std::string> near = Nearest(name, options)) message += "; did you mean " + *near + "?";
      return message + " (" + (sub != nullptr ? "qdcache " + sub->get_name() + " --help" : "qdcache --help") + ")";
    }
  }
  if (!extras.empty()) {
    return "unexpected argument '" + extras.front() + "' for " + where + " (" +
           (sub != nullptr ? "qdcache " + sub->get_name() + " --help" : "qdcache --help") + ")";
  }
  return error.what();
}

std::string BashCompletion(const CLI::App& app, const std::string& program) {
  auto join = [](const std::vector<std::string>& words) {
    std::string out;
    for (const std::string& w : words) out += (out.empty() ? "" : " ") + w;
    return out;
  };
  const std::string fn = "_" + program;
  std::ostringstream s;
  s << "# bash completion for " << program << ", generated by `" << program
    << " completion bash` from its own command-line definition.\n"
    << fn << "() {\n"
    << "  local cur=\"${COMP_WORDS[COMP_CWORD]}\" cmd=\"\" i\n"
    << "  local global=\"" << join(OptionNames(app)) << "\"\n"
    << "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
    << "    case \"${COMP_WORDS[i]}\" in\n"
    << "      " << [&] {
         std::string alternatives;
         for (const std::string& c : SubcommandNames(app)) alternatives += (alternatives.empty() ? "" : "|") + c;
         return alternatives;
       }()
    << ") cmd=\"${COMP_WORDS[i]}\"; break ;;\n"
    << "    esac\n"
    << "  done\n"
    << "  local words=\"\"\n"
    << "  case \"$cmd\" in\n"
    << "    \"\") words=\"" << join(SubcommandNames(app)) << "\" ;;\n";
  for (const CLI::App* sub : Subcommands(app)) {
    s << "    " << sub->get_name() << ") words=\"" << join(OptionNames(*sub)) << "\" ;;\n";
  }
  s << "  esac\n"
    << "  if [[ -z \"$cmd\" && \"$cur\" != -* ]]; then\n"
    << "    COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n"
    << "  elif [[ \"$cur\" == -* ]]; then\n"
    << "    COMPREPLY=($(compgen -W \"$words $global\" -- \"$cur\"))\n"
    << "  else\n"
    << "    COMPREPLY=($(compgen -f -- \"$cur\"))\n"
    << "  fi\n"
    << "}\n"
    << "complete -o filenames -F " << fn << " " << program << "\n";
  return s.str();
}

}  // namespace qdcache::cli
