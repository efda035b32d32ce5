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

}  // namespace
}  // namespace etkit::report
