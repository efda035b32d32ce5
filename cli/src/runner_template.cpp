#include "runner_template.h"

#include <sstream>

namespace etkit::cli {
namespace {

// The placeholder a word holds ("" when none), or an error.
Result<std::string> placeholder_of(const std::string& word, const TemplateValues& values) {
  const size_t open = word.find('{');
  if (open == std::string::npos) return std::string();
  const size_t close = word.find('}', open);
  if (close == std::string::npos) {
    return Error::make(ErrorCode::kInvalidArgument, "--runner-args: '%s' opens a placeholder it does not close",
                       word.c_str());
  }
  const std::string name = word.substr(open + 1, close - open - 1);
  if (values.count(name) == 0 || word.find('{', close) != std::string::npos) {
    return Error::make(ErrorCode::kInvalidArgument,
                       "--runner-args: '%s' is not one placeholder of {program}, {method}, {inputs}, {data}, "
                       "{output_dir}, {etdump}, {debug_buffer}",
                       word.c_str());
  }
  return name;
}

bool bare_flag(const std::string& word) { return word.size() > 1 && word[0] == '-' && word.find('{') == std::string::npos; }

}  // namespace

Result<std::vector<std::string>> expand_runner_template(const std::string& text, const TemplateValues& values) {
  std::vector<std::string> words;
  std::istringstream in(text);
  for (std::string word; in >> word;) words.push_back(word);
  std::vector<std::string> args;
  for (size_t i = 0; i < words.size(); ++i) {
    ETKIT_ASSIGN_OR_RETURN(std::string name, placeholder_of(words[i], values));
    const bool flag_with_value = bare_flag(words[i]) && i + 1 < words.size() && words[i + 1].find('{') != std::string::npos;
    if (name.empty() && !flag_with_value) {
      args.push_back(words[i]);
      continue;
    }
    if (name.empty()) continue;  // the flag goes with the placeholder word that follows
    const bool paired = i > 0 && bare_flag(words[i - 1]);
    const std::string token = "{" + name + "}";
    for (const std::string& value : values.at(name)) {
      if (paired) args.push_back(words[i - 1]);
      std::string word = words[i];
      word.replace(word.find(token), token.size(), value);
      args.push_back(word);
    }
  }
  return args;
}

}  // namespace etkit::cli
