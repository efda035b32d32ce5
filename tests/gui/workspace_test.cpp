// The workspace: files placed by magic, the trace linked to its program and
// ETRecord, problems reported per file, timeline events tied to their table
// rows. Truth: the corpus traces read event by event, and the CLI's own
// output (etinspect table --json) as a second path for the table.

#include "etkit/gui/workspace.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <tuple>
#include <nlohmann/json.hpp>

#include "etkit/etdump/etdump_reader.h"
#include "etkit/gui/events_table.h"
#include "etkit/gui/timeline_style.h"
#include "support/cli.h"

namespace etkit::gui {
namespace {

// The upstream trace with intermediate outputs, with our export of the same
// model (its instructions match the upstream program's, event for event).
OpenRequest tutorial_request() {
  OpenRequest request;
  request.files = {test::corpus("upstream-runtime/tutorial_cnn_intermediates.etdp"),
                   test::corpus("upstream-runtime/tutorial_cnn_intermediates.bin"),
                   test::corpus_program("tutorial_cnn.pte"), test::corpus_program("tutorial_cnn.etrecord")};
  return request;
}

TEST(Workspace, FilesArePlacedByMagicNotByName) {
  // Copies without extensions: only the bytes can tell what they are.
  OpenRequest request = tutorial_request();
  for (size_t i = 0; i < request.files.size(); ++i) {
    const std::string copy = test::temp("file" + std::to_string(i));
    std::filesystem::copy_file(request.files[i], copy, std::filesystem::copy_options::overwrite_existing);
    request.files[i] = copy;
  }
  std::reverse(request.files.begin(), request.files.end());  // the debug buffer before its trace
  const auto ws = Workspace::load(request);
  EXPECT_TRUE(ws->errors().empty()) << ws->errors()[0].path << ": " << ws->errors()[0].message;
  std::map<FileRole, std::string> roles;
  for (const OpenedFile& file : ws->files()) roles[file.role] = file.path;
  EXPECT_EQ(roles[FileRole::kTrace], request.files[3]);
  EXPECT_EQ(roles[FileRole::kDebugBuffer], request.files[2]);
  EXPECT_EQ(roles[FileRole::kProgram], request.files[1]);
  EXPECT_EQ(roles[FileRole::kRecord], request.files[0]);
  ASSERT_NE(ws->trace(), nullptr);
  ASSERT_NE(ws->record(), nullptr);
  ASSERT_NE(ws->method(), nullptr);
  EXPECT_FALSE(ws->debug_outputs().empty());
  EXPECT_FALSE(ws->memory().empty());
}

TEST(Workspace, EveryTimelineEventIsItsTableEvent) {
  const auto ws = Workspace::load(tutorial_request());
  ASSERT_TRUE(ws->errors().empty());
  size_t linked = 0, kernels = 0, kernels_with_ops = 0;
  for (size_t t = 0; t < ws->timeline().tracks().size(); ++t) {
    const TimelineTrack& track = ws->timeline().tracks()[t];
    for (size_t i = 0; i < track.events.size(); ++i) {
      const TimelineEvent& event = track.events[i];
      const inspector::Event* e = ws->event_of(track, event);
      ASSERT_NE(e, nullptr) << track.name << " event " << i;
      EXPECT_EQ(e->name, track.name_of(event));
      EXPECT_EQ(e->instruction_id, event.instruction_id);
      ++linked;
      if (e->name.rfind("native_call_", 0) == 0) {
        ++kernels;
        kernels_with_ops += !e->op_types.empty();
      }
      // And back: the table row leads to its event in the block's first run
      // (this very event when it is of the first run).
      const auto back = ws->timeline_event_of(size_t(track.group), size_t(event.row));
      ASSERT_TRUE(back);
      const TimelineTrack& first_run = ws->timeline().tracks()[back->first];
      EXPECT_EQ(first_run.group, track.group);
      EXPECT_EQ(first_run.run, 0);
      EXPECT_EQ(first_run.events[back->second].row, event.row);
      if (track.run == 0) {
        EXPECT_EQ(back->first, t);
        EXPECT_EQ(back->second, i);
      }
    }
  }
  EXPECT_EQ(linked, ws->timeline().event_count());
  EXPECT_GT(kernels, 0u);
  EXPECT_EQ(kernels_with_ops, kernels);  // every kernel reached its graph node
}

// A delegate's events carry the table's names in the timeline: etkit's
// XNNPACK events their operator ("Convolution (NHWC, F32) IGEMM #1": the
// timeline said "1", its id), upstream's runtime's their id (they have no
// other name).
TEST(Workspace, DelegatedEventsHaveTheTablesNamesInTheTimeline) {
  const std::string trace = test::temp("named-xnn.etdp");
  const auto ran = test::etinspect({"run", test::sample("mobilenet_v2_xnnpack/mobilenet_v2_xnnpack.pte"), "--etdump", trace});
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  for (const std::string& path : {trace, test::corpus("upstream-runtime/xnn_mlp.etdp")}) {
    SCOPED_TRACE(path);
    OpenRequest request;
    request.files = {path};
    const auto ws = Workspace::load(request);
    ASSERT_TRUE(ws->errors().empty()) << ws->errors()[0].message;
    size_t delegated = 0, named = 0;
    for (const TimelineTrack& track : ws->timeline().tracks()) {
      for (const TimelineEvent& event : track.events) {
        const inspector::Event* e = ws->event_of(track, event);
        if (e == nullptr || !e->is_delegated_op) continue;
        ++delegated;
        EXPECT_EQ(track.name_of(event), e->name);
        named += e->name.find(' ') != std::string::npos;  // an operator's name, not a number
      }
    }
    EXPECT_GT(delegated, 0u);
    if (path == trace) {
      EXPECT_EQ(named, delegated);
    }
  }
}

TEST(Workspace, UnreadableFilesAreErrorsAndTheRestStaysUsable) {
  const std::string trace = test::corpus("upstream/etdump/tutorial_cnn.etdp");
  const std::string truncated = test::temp("truncated.etdp");
  {
    std::ifstream in(trace, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), {});
    std::ofstream(truncated, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  }
  const std::string stray = test::temp("notes.txt");
  std::ofstream(stray) << "not a model";

  OpenRequest request;
  request.files = {truncated, test::sample("tutorial_cnn/tutorial_cnn.pte"), test::temp("missing.etdp")};
  request.files.push_back(stray);
  const auto ws = Workspace::load(request);
  ASSERT_EQ(ws->errors().size(), 3u);
  EXPECT_EQ(ws->errors()[0].path, test::temp("missing.etdp"));
  EXPECT_EQ(ws->errors()[1].path, truncated);
  EXPECT_EQ(ws->errors()[2].path, stray);  // no readable trace to belong to
  EXPECT_NE(ws->errors()[2].message.find("no known magic"), std::string::npos) << ws->errors()[2].message;
  EXPECT_EQ(ws->trace(), nullptr);
  EXPECT_NE(ws->program(), nullptr);  // the program still opened
  EXPECT_TRUE(ws->blocks().empty());

  // A second trace is no silent replacement; a wrong kind for a flag is named.
  OpenRequest two;
  two.files = {trace, trace};
  two.baseline = test::sample("tutorial_cnn/tutorial_cnn.pte");
  const auto ws2 = Workspace::load(two);
  ASSERT_EQ(ws2->errors().size(), 2u);
  EXPECT_NE(ws2->errors()[0].message.find("holds one trace"), std::string::npos) << ws2->errors()[0].message;
  EXPECT_NE(ws2->errors()[1].message.find("not an ETDump trace"), std::string::npos) << ws2->errors()[1].message;
  EXPECT_NE(ws2->trace(), nullptr);
}

TEST(Workspace, AnETRecordOfAnotherProgramIsAWarning) {
  OpenRequest request;
  request.files = {test::corpus("upstream/etdump/tutorial_cnn.etdp"), test::sample("mobilenet_v2/mobilenet_v2.etrecord")};
  const auto ws = Workspace::load(request);
  EXPECT_TRUE(ws->errors().empty());
  ASSERT_EQ(ws->warnings().size(), 1u);
  EXPECT_NE(ws->warnings()[0].message.find("does not belong to this trace"), std::string::npos);
}

// The table's rows, in trace order, are `etinspect table`'s: same events,
// same block names, same op types and p50 (a second path: the CLI process).
// The gap view compares what `etinspect gap` compares from the same files
// (the float XNNPACK MobileNetV2 against the portable one, matched by node
// through both ETRecords): the same rows and statuses, agreement, and each
// compared row, delegated ones included, keeps its own tensors for the
// heat maps (they were looked up by instruction id: every delegated op
// showed the delegate call's first output).
TEST(Workspace, GapViewIsTheClisGapOfTheSameFiles) {
  const std::string xnn = test::sample("mobilenet_v2_xnnpack/mobilenet_v2_xnnpack");
  const std::string portable = test::sample("mobilenet_v2/mobilenet_v2");
  const std::string trace = test::temp("gap-xnn.etdp"), buffer = test::temp("gap-xnn.bin");
  const std::string reference = test::temp("gap-portable.etdp"), reference_buffer = test::temp("gap-portable.bin");
  for (const auto& [pte, etdp, bin] : {std::tuple{xnn, trace, buffer}, std::tuple{portable, reference, reference_buffer}}) {
    const auto ran = test::etinspect({"run", pte + ".pte", "--fill", "random", "--seed", "7", "--debug-level",
                                      "intermediates", "--etdump", etdp, "--debug-buffer", bin});
    ASSERT_EQ(ran.exit_code, 0) << ran.err;
  }
  OpenRequest request;
  request.files = {trace, buffer, xnn + ".pte", xnn + ".etrecord"};
  request.reference = reference;
  request.reference_debug_buffer = reference_buffer;
  request.reference_program = portable + ".pte";
  request.reference_etrecord = portable + ".etrecord";
  const auto ws = Workspace::load(request);
  ASSERT_TRUE(ws->errors().empty()) << ws->errors()[0].path << ": " << ws->errors()[0].message;
  ASSERT_NE(ws->gap(), nullptr);
  const auto cli = test::etinspect({"gap", trace, "--debug-buffer", buffer, "--program", xnn + ".pte", "--etrecord",
                                    xnn + ".etrecord", "--reference", reference, "--reference-debug-buffer",
                                    reference_buffer, "--reference-program", portable + ".pte",
                                    "--reference-etrecord", portable + ".etrecord", "--json"});
  ASSERT_EQ(cli.exit_code, 0) << cli.err;
  const nlohmann::json expected = nlohmann::json::parse(cli.out);
  const inspector::GapReport& gap = *ws->gap();
  EXPECT_EQ(gap.compared, expected["compared"].get<size_t>());
  EXPECT_GT(gap.compared, 60u);
  EXPECT_FALSE(gap.first_divergence);
  ASSERT_EQ(gap.rows.size(), expected["rows"].size());
  size_t delegated = 0;
  for (size_t r = 0; r < gap.rows.size(); ++r) {
    const inspector::GapRow& row = gap.rows[r];
    EXPECT_EQ(to_string(row.status), expected["rows"][r]["status"].get<std::string>()) << r;
    EXPECT_EQ(row.delegate_debug_id, expected["rows"][r]["delegate_debug_id"].get<int64_t>()) << r;
    if (row.status != inspector::GapStatus::kOk) continue;
    delegated += row.delegate_debug_id >= 0;
    int64_t numel = 1;
    for (int64_t size : row.actual_sizes) numel *= size;
    EXPECT_EQ(row.actual_values.size(), size_t(numel)) << r;
    EXPECT_EQ(row.reference_values.size(), row.actual_values.size()) << r;
  }
  EXPECT_GT(delegated, 50u);  // the convolutions inside the delegate, each with its own values
  bool described = false;
  for (const OpenedFile& file : ws->files()) {
    described |= file.role == FileRole::kReference && test::contains(file.description, "compared (0 diverged)");
  }
  EXPECT_TRUE(described);
}

TEST(Workspace, AReferenceChosenTogetherIsPlacedByItsBytes) {
  const std::string folder = test::temp("reference-npy");
  std::filesystem::create_directories(folder);
  const OpenRequest request = reference_request(
      {test::corpus_program("tutorial_cnn.etrecord"), test::corpus("upstream-runtime/tutorial_cnn_intermediates.bin"),
       test::corpus_program("tutorial_cnn.pte"), test::corpus("upstream-runtime/tutorial_cnn_intermediates.etdp")});
  EXPECT_EQ(request.reference, test::corpus("upstream-runtime/tutorial_cnn_intermediates.etdp"));
  EXPECT_EQ(request.reference_debug_buffer, test::corpus("upstream-runtime/tutorial_cnn_intermediates.bin"));
  EXPECT_EQ(request.reference_program, test::corpus_program("tutorial_cnn.pte"));
  EXPECT_EQ(request.reference_etrecord, test::corpus_program("tutorial_cnn.etrecord"));
  EXPECT_TRUE(request.files.empty());
  EXPECT_EQ(reference_request({folder}).reference, folder);
}

TEST(EventsTable, RowsAreTheCliTableRows) {
  const OpenRequest request = tutorial_request();
  const auto ws = Workspace::load(request);
  const EventsTable table(*ws);
  const test::CommandResult cli = test::etinspect({"table", request.files[0], "--etrecord", request.files[3],
                                                   "--program", request.files[2], "--format", "json"});
  ASSERT_EQ(cli.exit_code, 0) << cli.err;
  const auto rows = nlohmann::json::parse(cli.out);
  ASSERT_EQ(table.row_count(), rows.size());
  size_t p50 = 0, share = 0;
  while (table.header(p50) != "p50") ++p50;
  while (table.columns()[share] != Column::kShare) ++share;
  // The share of the run: each event's p50 over its block's Method::execute
  // p50, from the CLI's numbers.
  std::map<std::string, double> run_p50;
  for (const auto& row : rows) {
    if (row["event_name"] == "Method::execute") run_p50[row["event_block_name"].get<std::string>()] = row["p50"];
  }
  ASSERT_FALSE(run_p50.empty());
  for (size_t r = 0; r < rows.size(); ++r) {
    SCOPED_TRACE(r);
    EXPECT_EQ(table.text(r, 0), rows[r]["event_block_name"].get<std::string>());
    EXPECT_EQ(table.text(r, 1), rows[r]["event_name"].get<std::string>());
    EXPECT_EQ(table.event(r).event->op_types, rows[r]["op_types"].get<std::vector<std::string>>());
    if (rows[r]["p50"].is_null()) continue;
    EXPECT_DOUBLE_EQ(*table.number(r, p50), rows[r]["p50"].get<double>());
    const auto run = run_p50.find(rows[r]["event_block_name"].get<std::string>());
    if (run == run_p50.end()) {
      EXPECT_FALSE(table.number(r, share));  // a block without Method::execute (the load)
    } else {
      EXPECT_NEAR(*table.number(r, share), 100.0 * rows[r]["p50"].get<double>() / run->second, 1e-9);
    }
  }
}

// Time cells in the unit their magnitude reads best in, three figures.
TEST(EventsTable, DurationsReadInTheirOwnUnit) {
  using inspector::TimeUnit;
  EXPECT_EQ(duration_text(6.29412, TimeUnit::kMilliseconds), "6.29 ms");
  EXPECT_EQ(duration_text(0.0538, TimeUnit::kMilliseconds), "53.8 µs");
  EXPECT_EQ(duration_text(0.000912, TimeUnit::kMilliseconds), "912 ns");
  EXPECT_EQ(duration_text(1050, TimeUnit::kMilliseconds), "1.05 s");
  EXPECT_EQ(duration_text(0.9996, TimeUnit::kMilliseconds), "1.00 ms");  // rounds up into the next unit
  EXPECT_EQ(duration_text(-0.25, TimeUnit::kMilliseconds), "-250 µs");
  EXPECT_EQ(duration_text(123.4, TimeUnit::kMicroseconds), "123 µs");
  EXPECT_EQ(duration_text(1500, TimeUnit::kCycles), "1500 cycles");
}

TEST(EventsTable, SortsAndFilters) {
  const auto ws = Workspace::load(tutorial_request());
  EventsTable table(*ws);
  const size_t all = table.row_count();
  size_t p50 = 0;
  while (table.header(p50) != "p50") ++p50;
  table.sort(p50, false);
  ASSERT_EQ(table.row_count(), all);
  for (size_t r = 1; r < table.row_count(); ++r) {
    if (!table.number(r, p50)) {
      for (size_t rest = r; rest < table.row_count(); ++rest) EXPECT_FALSE(table.number(rest, p50));  // empty last
      break;
    }
    EXPECT_GE(*table.number(r - 1, p50), *table.number(r, p50));
  }
  table.sort(1, true);
  for (size_t r = 1; r < table.row_count(); ++r) EXPECT_LE(table.text(r - 1, 1), table.text(r, 1));

  // Filter: rows whose name, op types, module or source mention "CONV"
  // (case-insensitive); counted independently from the trace's kernels.
  table.set_filter("CONV");
  size_t convolutions = 0;
  const etdump::RunBlock run = ws->trace()->block(1);
  for (size_t e = 0; e < run.event_count(); ++e) {
    const etdump::EventView view = run.event(e);
    convolutions += view.kind == etdump::EventKind::kProfile &&
                    std::string(view.profile.name).find("convolution") != std::string::npos;
  }
  ASSERT_GT(convolutions, 0u);
  EXPECT_EQ(table.row_count(), convolutions);
  for (size_t r = 0; r < table.row_count(); ++r) {
    EXPECT_NE(table.event(r).event->name.find("convolution"), std::string::npos);
  }
  const auto [block, event] = table.place(0);
  EXPECT_EQ(table.row_of(block, event), 0u);
  table.set_filter("");
  EXPECT_EQ(table.row_count(), all);
}

// With a baseline, Δp50 is what `etinspect diff` computes: the trace against
// itself gives zero everywhere, against the other upstream trace of the same
// model the CLI's deltas.
TEST(EventsTable, BaselineAddsTheDiffDeltas) {
  OpenRequest request;
  request.files = {test::corpus("upstream-runtime/tutorial_cnn_intermediates.etdp")};
  request.baseline = test::corpus("upstream/etdump/tutorial_cnn.etdp");
  const auto ws = Workspace::load(request);
  ASSERT_TRUE(ws->errors().empty()) << ws->errors()[0].message;
  const EventsTable table(*ws);
  size_t delta = 0;
  while (delta < table.columns().size() && table.columns()[delta] != Column::kDeltaP50) ++delta;
  ASSERT_LT(delta, table.columns().size());
  const test::CommandResult cli =
      test::etinspect({"diff", request.baseline, request.files[0], "--json", "--sort", "event"});
  ASSERT_NE(cli.exit_code, 3) << cli.err;
  const auto diff = nlohmann::json::parse(cli.out);
  std::multiset<double> expected, shown;
  for (const auto& row : diff["events"]) {
    if (!row["delta"].is_null()) expected.insert(row["delta"].get<double>());
  }
  for (size_t r = 0; r < table.row_count(); ++r) {
    if (const auto v = table.number(r, delta)) shown.insert(*v);
  }
  ASSERT_FALSE(expected.empty());
  EXPECT_EQ(shown, expected);
}

// Timeline events are labelled by op and module: the profiling tutorial's
// CNN (upstream's tutorial code) holds its two convolutions in modules conv1
// and conv2, which its ETRecord names for their kernels.
TEST(Workspace, TimelineLabelsAreOpAndModule) {
  const auto ws = Workspace::load(tutorial_request());
  ASSERT_TRUE(ws->errors().empty());
  std::set<std::string> labels;
  for (const TimelineTrack& track : ws->timeline().tracks()) {
    for (const TimelineEvent& event : track.events) labels.insert(ws->event_label(track, event));
  }
  EXPECT_TRUE(labels.count("convolution · conv1")) << *labels.begin();
  EXPECT_TRUE(labels.count("convolution · conv2"));
  EXPECT_TRUE(labels.count("Method::execute"));
  for (const std::string& label : labels) EXPECT_EQ(label.find("native_call_"), std::string::npos) << label;
}

// A trace cut short: the workspace says why it has no trace (the timeline
// shows it), the rest opens.
TEST(Workspace, ATruncatedTraceSaysWhyThereIsNoTimeline) {
  auto bytes = test::read_file(test::corpus("upstream/etdump/tutorial_cnn.etdp"));
  bytes.resize(1000);
  const std::string cut = test::write_temp("cut.etdp", bytes);
  OpenRequest request;
  request.files = {cut, test::corpus_program("tutorial_cnn.pte")};
  const auto ws = Workspace::load(request);
  EXPECT_EQ(ws->trace(), nullptr);
  EXPECT_NE(ws->trace_problem().find("size prefix says 2316 bytes follow, the file has 996 after it"),
            std::string::npos)
      << ws->trace_problem();
  EXPECT_NE(ws->program(), nullptr);
  OpenRequest fine = tutorial_request();
  EXPECT_EQ(Workspace::load(fine)->trace_problem(), "");
}

// The comparison's verdict line: the whole run's p50 before and after as
// etinspect diff's total row gives them (a second path), and a verdict.
TEST(Workspace, ComparisonVerdictIsTheDiffsWholeRun) {
  for (const char* tag : {"verdict_a", "verdict_b"}) {
    ASSERT_EQ(test::etinspect({"run", test::sample("tutorial_cnn/tutorial_cnn.pte"), "--iterations", "12", "--etdump",
                               test::temp(std::string(tag) + ".etdp")})
                  .exit_code,
              0);
  }
  OpenRequest request;
  request.files = {test::temp("verdict_b.etdp")};
  request.baseline = test::temp("verdict_a.etdp");
  const auto ws = Workspace::load(request);
  ASSERT_TRUE(ws->errors().empty()) << ws->errors()[0].message;
  const std::string line = ws->comparison_verdict();
  const auto cli = nlohmann::json::parse(test::etinspect({"diff", request.baseline, request.files[0], "--json"}).out);
  const auto& total = cli["total"][0];
  char numbers[128];
  std::snprintf(numbers, sizeof numbers, "whole run (Method::execute p50): %.6f -> %.6f ms (",
                total["before"].get<double>(), total["after"].get<double>());
  EXPECT_EQ(line.rfind(numbers, 0), 0u) << line << "\n" << numbers;
  EXPECT_NE(line.find("12 and 12 runs"), std::string::npos) << line;
  const bool judged = line.find("beyond the runs' noise") != std::string::npos ||
                      line.find("within the runs' noise") != std::string::npos;
  EXPECT_TRUE(judged) << line;
  // Without a baseline there is nothing to compare.
  OpenRequest alone;
  alone.files = request.files;
  EXPECT_EQ(Workspace::load(alone)->comparison_verdict(), "");
}

// The baseline is drawn run under run: each of its runs starts where the
// trace's run of the same name does, every event keeps its duration and
// its place in the run (against the baseline's own timeline, unmoved), and
// takes the colour of the same op in the trace. Each table event knows its
// diff row, whose runs are the event's own.
TEST(Workspace, TheBaselineLinesUpRunToRunInTheTracesColours) {
  for (const char* tag : {"aligned_a", "aligned_b"}) {
    ASSERT_EQ(test::etinspect({"run", test::sample("tutorial_cnn/tutorial_cnn.pte"), "--iterations", "4", "--warmup", "1",
                               "--etdump", test::temp(std::string(tag) + ".etdp")})
                  .exit_code,
              0);
  }
  OpenRequest request;
  request.files = {test::temp("aligned_b.etdp"), test::sample("tutorial_cnn/tutorial_cnn.etrecord")};
  request.baseline = test::temp("aligned_a.etdp");
  const auto ws = Workspace::load(request);
  ASSERT_TRUE(ws->errors().empty()) << ws->errors()[0].message;
  ASSERT_NE(ws->baseline_timeline(), nullptr);
  auto trace = etdump::ETDump::load_file(request.baseline);
  ASSERT_TRUE(trace.ok());
  auto unmoved = TimelineModel::build(*trace, inspector::TimeUnit::kNanoseconds, nullptr, true);
  ASSERT_TRUE(unmoved.ok());
  const auto& primary = ws->timeline().tracks();
  const auto& baseline = ws->baseline_timeline()->tracks();
  ASSERT_EQ(baseline.size(), unmoved->tracks().size());
  TimelineStyle style(*ws, ws->timeline());
  size_t aligned = 0;
  for (size_t t = 0; t < baseline.size(); ++t) {
    const TimelineTrack& original = unmoved->tracks()[t];
    for (const TimelineTrack& run : primary) {
      if (run.name == baseline[t].name) {
        EXPECT_DOUBLE_EQ(baseline[t].start, run.start) << run.name;
        ++aligned;
      }
    }
    ASSERT_EQ(baseline[t].events.size(), original.events.size());
    for (size_t i = 0; i < original.events.size(); ++i) {
      const TimelineEvent &moved = baseline[t].events[i], &was = original.events[i];
      EXPECT_NEAR(moved.end - moved.start, was.end - was.start, 1e-6);
      EXPECT_NEAR(moved.start - baseline[t].start, was.start - original.start, 1e-6);
    }
  }
  EXPECT_EQ(aligned, baseline.size());  // the same program run alike: every run has its twin
  // Colours: the trace's for the same (name, instruction).
  size_t compared = 0;
  for (size_t t = 0; t < baseline.size(); ++t) {
    for (size_t i = 0; i < baseline[t].events.size(); ++i) {
      const TimelineEvent& e = baseline[t].events[i];
      for (size_t p = 0; p < primary.size() && compared < 5000; ++p) {
        for (size_t j = 0; j < primary[p].events.size(); ++j) {
          const TimelineEvent& f = primary[p].events[j];
          if (f.instruction_id != e.instruction_id || primary[p].name_of(f) != baseline[t].name_of(e)) continue;
          EXPECT_EQ(style.baseline_colour(t, i), style.colour(p, j)) << baseline[t].name_of(e);
          ++compared;
        }
      }
    }
  }
  EXPECT_GT(compared, 100u);
  // Diff rows: an event's row names it and holds its runs.
  size_t rows = 0;
  for (size_t b = 0; b < ws->blocks().size(); ++b) {
    for (size_t e = 0; e < ws->blocks()[b].events.size(); ++e) {
      const inspector::Event& event = ws->blocks()[b].events[e];
      const inspector::DiffRow* row = ws->diff_row_of(b, e);
      if (event.name == "OPERATOR_CALL" || !event.perf_data) {
        EXPECT_EQ(row, nullptr);
        continue;
      }
      if (row == nullptr) continue;
      EXPECT_EQ(row->event, event.name);
      EXPECT_EQ(row->block, ws->blocks()[b].name);
      EXPECT_EQ(row->after_runs, event.perf_data->raw);
      ++rows;
    }
  }
  EXPECT_GT(rows, 10u);
  EXPECT_EQ(ws->diff_row_of(ws->blocks().size(), 0), nullptr);
}

}  // namespace
}  // namespace etkit::gui
