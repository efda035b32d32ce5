// etinspect size FILE: every byte of a .pte, .bpte or .ptd attributed to a
// part (inspector/file_size.h): a tree whose parts add up to the file.

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "diagnostics.h"
#include "json_text.h"
#include "etkit/etrecord/etrecord.h"
#include "etkit/core/file_data.h"
#include "etkit/inspector/file_size.h"
#include "option_checks.h"
#include "program_loading.h"

namespace etkit::cli {
namespace {

struct SizeOptions {
  std::string file;
  int depth = 4;
  size_t top = 0;
  bool json = false;
  std::string etrecord;  ///< names the op, module and source line that read each constant
};

nlohmann::json to_json(const inspector::SizePart& part) {
  nlohmann::json parts = nlohmann::json::array();
  for (const auto& sub : part.parts) parts.push_back(to_json(sub));
  nlohmann::json out = {{"name", part.name}, {"bytes", part.bytes}, {"parts", parts}};
  if (!part.detail.empty()) out["detail"] = part.detail;
  return out;
}

// Each leaf's detail by its path, as largest_leaves names paths.
void details_by_path(const inspector::SizePart& part, const std::string& path, std::map<std::string, std::string>& out) {
  for (const auto& sub : part.parts) {
    const std::string sub_path = path.empty() ? sub.name : path + "/" + sub.name;
    if (!sub.detail.empty()) out[sub_path] = sub.detail;
    details_by_path(sub, sub_path, out);
  }
}

void print_tree(const inspector::SizePart& part, uint64_t total, int depth, int max_depth) {
  const double share = total > 0 ? 100.0 * double(part.bytes) / double(total) : 0.0;
  fmt::print("{:>12}  {:5.1f}%  {}{}{}\n", part.bytes, share, std::string(size_t(depth) * 2, ' '), part.name,
             part.detail.empty() ? "" : " <- " + part.detail);
  if (depth + 1 > max_depth) return;
  for (const auto& sub : part.parts) print_tree(sub, total, depth + 1, max_depth);
}

int run_size(const SizeOptions& options) {
  Diagnostics diagnostics;
  auto data = FileData::load(options.file);
  if (!data.ok()) return diagnostics.fail(data.error());
  auto root = inspector::file_size_breakdown((*data)->bytes(), options.file);
  if (!root.ok()) return diagnostics.fail(root.error());
  if (!options.etrecord.empty()) {
    auto program = load_program(options.file, {});
    if (!program.ok()) return diagnostics.fail(program.error());
    auto record = etrecord::Etrecord::load_file(options.etrecord);
    if (!record.ok()) return diagnostics.fail(record.error());
    for (const std::string& warning : record->warnings()) diagnostics.warning(options.etrecord + ": " + warning);
    if (inspector::link_constants(*root, summarize(*(*program)->program), *record) == 0) {
      diagnostics.warning(options.etrecord + ": no constant of " + options.file + " was linked to a graph node");
    }
  }
  const auto top = options.top > 0 ? inspector::largest_leaves(*root, options.top)
                                   : std::vector<std::pair<std::string, uint64_t>>{};
  if (options.json) {
    nlohmann::json out = {{"file", options.file}, {"file_bytes", root->bytes}, {"parts", to_json(*root)["parts"]}};
    if (options.top > 0) {
      out["largest"] = nlohmann::json::array();
      std::map<std::string, std::string> details;
      details_by_path(*root, "", details);
      for (const auto& [path, bytes] : top) {
        nlohmann::json item = {{"path", path}, {"bytes", bytes}};
        if (details.count(path)) item["detail"] = details[path];
        out["largest"].push_back(item);
      }
    }
    std::cout << json_text(out, 1) << "\n";
    return kExitOk;
  }
  fmt::print("{:>12}  {:>6}  part\n", "bytes", "share");
  print_tree(*root, root->bytes, 0, options.depth);
  if (!top.empty()) {
    fmt::print("\nlargest parts:\n");
    std::map<std::string, std::string> details;
    details_by_path(*root, "", details);
    for (const auto& [path, bytes] : top) {
      fmt::print("{:>12}  {:5.1f}%  {}{}\n", bytes, 100.0 * double(bytes) / double(root->bytes), path,
                 details.count(path) ? " <- " + details[path] : "");
    }
  }
  return kExitOk;
}

}  // namespace

void register_size(CLI::App& app, CommandContext& context) {
  auto options = std::make_shared<SizeOptions>();
  CLI::App* command = app.add_subcommand(
      "size", "What makes a file big: every byte of a .pte, .bpte or .ptd attributed, the parts adding up to the file");
  command->add_option("file", options->file, ".pte, .bpte or .ptd")->required();
  command->add_option("--depth", options->depth, "Levels of the tree to print (default 4; --json has them all)")
      ->check(whole_number(1, 64));
  command->add_option("--top", options->top, "Also list the N largest leaf parts")->check(whole_number(1));
  command->add_option("--etrecord", options->etrecord,
                      "Name the op, module and source line that read each constant (program files)");
  command->add_flag("--json", options->json,
                    "{file, file_bytes, parts: [{name, bytes, parts: [...]}]}, each node's parts adding up to it");
  command->callback([options, &context] { context.exit_code = run_size(*options); });
}

}  // namespace etkit::cli
