#include "etkit/report/printer.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

namespace etkit::report {
namespace {

void describe(Printer& out) {
  out.begin_list("files");
  out.begin_object("");
  out.field("path", "a.pte");
  out.field("count", uint64_t{3});
  out.field("ok", true);
  out.int_list("sizes", {2, 3});
  out.string_list("ops", {"aten::add.out"});
  out.begin_list("empty");
  out.end_list();
  out.end_object();
  out.end_list();
  out.finish();
}

TEST(Printer, TextAndJsonCarryTheSameContent) {
  std::ostringstream text;
  std::ostringstream json;
  describe(*make_text_printer(text));
  describe(*make_json_printer(json));
  EXPECT_EQ(text.str(),
            "files:\n"
            "- path: a.pte\n"
            "  count: 3\n"
            "  ok: yes\n"
            "  sizes: [2, 3]\n"
            "  ops:\n"
            "    aten::add.out\n"
            "  empty: (none)\n");
  const auto parsed = nlohmann::json::parse(json.str());
  EXPECT_EQ(parsed, nlohmann::json::parse(R"([{"path": "a.pte", "count": 3, "ok": true,
      "sizes": [2, 3], "ops": ["aten::add.out"], "empty": []}])"));
}

TEST(Printer, JsonSurvivesInvalidUtf8FromFiles) {
  std::ostringstream json;
  auto out = make_json_printer(json);
  out->begin_object("");
  out->field("name", std::string("bad\xff"));
  out->end_object();
  out->finish();
  EXPECT_NO_THROW(nlohmann::json::parse(json.str()));
}

// A two-level tree: text indents the first text column by level and stops
// at `text_levels`; JSON nests every level under the children key and
// leaves empty cells out.
void describe_tree(Printer& out, size_t text_levels) {
  const std::vector<TableColumn> columns = {{"bytes", 0}, {"name", 0}, {"detail", 0, true}};
  TreeRow leaf{{Cell::of(int64_t(3)), Cell::of("leaf"), Cell::of("read by conv")}, {}};
  TreeRow root{{Cell::of(int64_t(5)), Cell::of("root"), Cell::empty()}, {leaf}};
  out.begin_object("");
  out.tree("parts", columns, {root}, "parts", text_levels);
  out.end_object();
  out.finish();
}

TEST(Printer, TreesIndentInTextAndNestInJson) {
  std::ostringstream all, top, json;
  describe_tree(*make_text_printer(all), 0);
  describe_tree(*make_text_printer(top), 1);
  describe_tree(*make_json_printer(json), 1);
  EXPECT_EQ(all.str(),
            "parts:\n"
            "bytes  name\n"
            "    5  root\n"
            "    3    leaf\n");
  EXPECT_EQ(top.str(),
            "parts:\n"
            "bytes  name\n"
            "    5  root\n");
  EXPECT_EQ(nlohmann::json::parse(json.str()), nlohmann::json::parse(R"({"parts": [{"bytes": 5, "name": "root",
      "parts": [{"bytes": 3, "name": "leaf", "detail": "read by conv", "parts": []}]}]})"));
}

// A row-limited table: text shows the first rows and how many more there
// are; JSON has every row.
TEST(Printer, TextShowsTheFirstRowsJsonAll) {
  const auto three_rows = [](Printer& out) {
    out.begin_object("");
    out.table("ops", {{"name", 0}}, {{Cell::of("a")}, {Cell::of("b")}, {Cell::of("c")}}, 2);
    out.end_object();
    out.finish();
  };
  std::ostringstream text, json;
  three_rows(*make_text_printer(text));
  three_rows(*make_json_printer(json));
  EXPECT_EQ(text.str(),
            "ops:\n"
            "name\n"
            "a\n"
            "b\n"
            "... 1 more (--json has all)\n");
  EXPECT_EQ(nlohmann::json::parse(json.str())["ops"].size(), 3u);
}

// A cell of texts: one JSON list, shown separated by spaces (memory's
// consumers); an empty list is an empty JSON list and an empty cell.
TEST(Printer, TextListCellsAreJsonLists) {
  const auto two_rows = [](Printer& out) {
    out.begin_object("");
    out.table("tensors", {{"value", 0}, {"consumers", 0}},
              {{Cell::of(int64_t(0)), Cell::of(std::vector<std::string>{"aten::mul.out", "aten::add.out"})},
               {Cell::of(int64_t(1)), Cell::of(std::vector<std::string>{})}});
    out.end_object();
    out.finish();
  };
  std::ostringstream text, json;
  two_rows(*make_text_printer(text));
  two_rows(*make_json_printer(json));
  EXPECT_NE(text.str().find("aten::mul.out aten::add.out"), std::string::npos) << text.str();
  EXPECT_EQ(nlohmann::json::parse(json.str()), nlohmann::json::parse(R"({"tensors": [
      {"value": 0, "consumers": ["aten::mul.out", "aten::add.out"]}, {"value": 1, "consumers": []}]})"));
}

}  // namespace
}  // namespace etkit::report
