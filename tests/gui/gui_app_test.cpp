// The desktop app under a virtual display (xvfb-run, Mesa's software GL):
// files open, selection follows between the table and the timeline both
// ways, a corrupt file shows its error and the app keeps working, the
// MobileNetV2 sample links to its model, and every view's screenshot is
// non-blank and of the requested size.

#include <QApplication>
#include <QDir>
#include <QImage>
#include <QLineEdit>
#include <QMimeData>
#include <QSettings>
#include <QProcess>
#include <algorithm>
#include <QSet>
#include <QSurfaceFormat>
#include <QHeaderView>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest/QtTest>

#include "details_panel.h"
#include "etkit/gui/events_table.h"
#include "events_view.h"
#include "files_panel.h"
#include "imgui_canvas.h"
#include "main_window.h"
#include "graph_canvas.h"
#include "size_canvas.h"
#include "steps_canvas.h"
#include "timeline_canvas.h"

using namespace etkit::gui;

namespace {

std::string corpus(const std::string& relative) { return std::string(ETKIT_CORPUS_DIR) + "/" + relative; }
std::string sample(const std::string& relative) { return std::string(ETKIT_SOURCE_DIR) + "/samples/" + relative; }
// The program the corpus's upstream-runtime tutorial_cnn traces ran (tests/fixtures/corpus_programs/).
std::string corpus_program(const std::string& file) {
  return std::string(ETKIT_SOURCE_DIR) + "/tests/fixtures/corpus_programs/" + file;
}

OpenRequest tutorial() {
  OpenRequest request;
  request.files = {corpus("upstream-runtime/tutorial_cnn_intermediates.etdp"),
                   corpus("upstream-runtime/tutorial_cnn_intermediates.bin"), corpus_program("tutorial_cnn.pte"),
                   corpus_program("tutorial_cnn.etrecord")};
  return request;
}

// Distinct colours in an image: a blank or single-colour picture has one or two.
int distinct_colours(const QImage& image) {
  QSet<QRgb> colours;
  for (int y = 0; y < image.height(); y += 3) {
    for (int x = 0; x < image.width(); x += 3) colours.insert(image.pixel(x, y));
  }
  return int(colours.size());
}

}  // namespace

class GuiAppTest : public QObject {
  Q_OBJECT

 private:
  std::unique_ptr<MainWindow> window_;
  QTemporaryDir temp_;

  void open(const OpenRequest& request) {
    window_->open_blocking(request, false);
    QVERIFY(window_->workspace() != nullptr);
  }

 private slots:
  void init() {
    window_ = std::make_unique<MainWindow>();
    window_->resize(1400, 900);
    window_->show();
    QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
  }
  void cleanup() { window_.reset(); }

  void opensCorpusAndSampleFiles() {
    open(tutorial());
    const Workspace& ws = *window_->workspace();
    QVERIFY2(ws.errors().empty(), ws.errors().empty() ? "" : ws.errors()[0].message.c_str());
    // The table shows the library's rows; the timeline every run block.
    const EventsTable expected(ws);
    QCOMPARE(window_->events()->model()->rowCount(), int(expected.row_count()));
    // The opening view frames a whole Execute run, from its start to its end.
    const auto typical = window_->timeline()->typical_run_track();
    QVERIFY(typical.has_value());
    const TimelineTrack& run = ws.timeline().tracks().at(*typical);
    QVERIFY(run.name.rfind("Execute #", 0) == 0);
    const Viewport& view = window_->timeline()->viewport();
    QVERIFY(view.t0 <= run.start);
    QVERIFY(view.t0 >= run.start - 20 * view.ns_per_pixel);
    QVERIFY(view.x_of(run.end) <= window_->timeline()->width());
    QVERIFY(view.x_of(run.end) >= window_->timeline()->width() - 20);
    QVERIFY(window_->timeline()->event_rect({*typical, 0}).has_value());
    QVERIFY(window_->files()->problems().isEmpty());
  }

  // Sorting moves the selected event's row; the selection moves with it
  // (it stayed on the row number, highlighting another event than Details
  // showed). The table opens sorted by share of the run, largest first.
  void sortingKeepsTheSelectedEvent() {
    open(tutorial());
    EventsView* events = window_->events();
    window_->show_view(View::kTable);
    const EventsTable* table = events->model()->table();
    QVERIFY(table != nullptr);
    const int indicator = events->view()->horizontalHeader()->sortIndicatorSection();
    QVERIFY(indicator >= 0);
    QCOMPARE(int(table->columns()[size_t(indicator)]), int(Column::kShare));
    for (int r = 1; r < events->model()->rowCount(); ++r) {
      const auto previous = table->number(size_t(r - 1), size_t(indicator)), here = table->number(size_t(r), size_t(indicator));
      if (previous && here) QVERIFY(*previous >= *here);
    }
    events->view()->selectRow(5);
    const auto chosen = events->selected_event();
    QVERIFY(chosen.has_value());
    for (int column : {1, 0, indicator}) {
      events->view()->sortByColumn(column, Qt::AscendingOrder);
      QCOMPARE(events->selected_event(), chosen);
    }
  }

  void tableRowSelectsAndFramesTheTimelineEvent() {
    open(tutorial());
    EventsView* events = window_->events();
    window_->show_view(View::kTable);
    // The second convolution row of the table.
    int row = -1, seen = 0;
    for (int r = 0; r < events->model()->rowCount(); ++r) {
      if (events->model()->index(r, 1).data().toString() == "native_call_convolution.out" && ++seen == 2) row = r;
    }
    QVERIFY(row >= 0);
    events->view()->selectRow(row);
    const auto [block, event] = events->model()->table()->place(size_t(row));
    const auto expected = window_->workspace()->timeline_event_of(block, event);
    QVERIFY(expected.has_value());
    QCOMPARE(window_->timeline()->selection(), expected);
    // Framed: the event spans most of the canvas, inside it.
    window_->show_view(View::kTimeline);
    QApplication::processEvents();
    const auto rect = window_->timeline()->event_rect(*expected);
    QVERIFY(rect.has_value());
    QVERIFY(rect->left() >= 0 && rect->right() <= window_->timeline()->width());
    QVERIFY(rect->width() > window_->timeline()->width() / 2);
    QVERIFY(window_->details()->text().contains("native_call_convolution.out"));
  }

  void timelineClickSelectsTheTableRow() {
    open(tutorial());
    TimelineCanvas* timeline = window_->timeline();
    const Workspace& ws = *window_->workspace();
    // A relu kernel of the first Execute run, zoomed so that it is wide.
    const TimelineTrack& track = ws.timeline().tracks()[1];
    size_t index = 0;
    while (track.name_of(track.events[index]) != "native_call_relu.out") ++index;
    timeline->select({{1, index}}, true);
    timeline->select(std::nullopt, false);
    const auto rect = timeline->event_rect({1, index});
    QVERIFY(rect.has_value());
    QTest::mouseClick(timeline, Qt::LeftButton, {}, rect->center().toPoint());
    QCOMPARE(timeline->selection(), (std::optional<EventId>{{1, index}}));
    const auto selected = window_->events()->selected_event();
    QVERIFY(selected.has_value());
    QCOMPARE(int(selected->first), track.group);
    QCOMPARE(int(selected->second), track.events[index].row);
    QCOMPARE(window_->events()->model()->table()->event(size_t(window_->events()->view()->currentIndex().row())).event->name,
             std::string("native_call_relu.out"));
    // Keys: W zooms in around the cursor, F fits everything again.
    const double before = timeline->viewport().ns_per_pixel;
    QTest::keyClick(timeline, Qt::Key_W);
    QVERIFY(timeline->viewport().ns_per_pixel < before);
    QTest::keyClick(timeline, Qt::Key_F);
    QCOMPARE(timeline->viewport().t0, 0.0);
    // Shift-drag selects a range and aggregates what lies inside it.
    const int y = int(rect->center().y());
    QTest::mousePress(timeline, Qt::LeftButton, Qt::ShiftModifier, QPoint(2, y));
    QMouseEvent move(QEvent::MouseMove, QPointF(timeline->width() - 2, y), timeline->mapToGlobal(QPointF(timeline->width() - 2, y)),
                     Qt::NoButton, Qt::LeftButton, Qt::ShiftModifier);
    QApplication::sendEvent(timeline, &move);
    QTest::mouseRelease(timeline, Qt::LeftButton, Qt::ShiftModifier, QPoint(timeline->width() - 2, y));
    QVERIFY(timeline->range().has_value());
    QVERIFY(!timeline->range_aggregate().empty());
  }

  void corruptFileShowsItsErrorAndTheAppKeepsWorking() {
    const QString corrupt = temp_.filePath("corrupt.etdp");
    {
      QFile in(QString::fromStdString(corpus("upstream/etdump/tutorial_cnn.etdp")));
      QVERIFY(in.open(QIODevice::ReadOnly));
      QByteArray bytes = in.readAll();
      bytes.truncate(bytes.size() / 3);
      QFile out(corrupt);
      QVERIFY(out.open(QIODevice::WriteOnly));
      out.write(bytes);
    }
    OpenRequest bad;
    bad.files = {corrupt.toStdString()};
    open(bad);
    const QStringList problems = window_->files()->problems();
    QCOMPARE(problems.size(), 1);
    QVERIFY2(problems[0].startsWith(corrupt), qPrintable(problems[0]));
    QCOMPARE(window_->events()->model()->rowCount(), 0);
    // Still working: the good trace opens in the same window.
    open(tutorial());
    QVERIFY(window_->files()->problems().isEmpty());
    QVERIFY(window_->events()->model()->rowCount() > 0);
  }

  // Files dropped on the window join the workspace (kinds by their bytes),
  // and land in the recent-files list.
  void droppedFilesJoinTheWorkspaceAndAreRemembered() {
    QSettings().remove("recent");
    OpenRequest trace;
    trace.files = {corpus("upstream/etdump/tutorial_cnn.etdp")};
    open(trace);
    QVERIFY(window_->workspace()->record() == nullptr);
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(QString::fromStdString(sample("tutorial_cnn/tutorial_cnn.etrecord")))});
    QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(window_.get(), &enter);
    QVERIFY(enter.isAccepted());
    // The drop starts a load on a worker; its result arrives through the event loop.
    QSignalSpy shown(window_.get(), &MainWindow::workspace_shown);
    QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(window_.get(), &drop);
    QVERIFY(shown.wait(60000));
    QVERIFY(window_->workspace()->trace() != nullptr);   // the trace stayed
    QVERIFY(window_->workspace()->record() != nullptr);  // and gained its record
    const QStringList recent = QSettings().value("recent").toStringList();
    QCOMPARE(recent.value(0), QString::fromStdString(sample("tutorial_cnn/tutorial_cnn.etrecord")));
    QVERIFY(recent.contains(QString::fromStdString(corpus("upstream/etdump/tutorial_cnn.etdp"))));
  }

  // The README's first command traces 2 warm-ups and 10 runs: they open as
  // three lanes (no staircase of twelve rows), framed on the whole of a run
  // of median length. On one thread: with two, while another test holds a
  // core (ctest -j2), each op waits for a worker that has no core, and those
  // waits, not the ops, set the widths the labels need.
  void defaultTimelineFramesOneWholeTypicalRun() {
    const QString trace = temp_.filePath("readme.etdp");
    QProcess run;
    run.start(ETINSPECT_PATH, {"run", QString::fromStdString(sample("mobilenet_v2/mobilenet_v2.pte")), "--fill",
                               "random", "--iterations", "10", "--warmup", "2", "--threads", "1", "--etdump", trace});
    QVERIFY(run.waitForFinished(300000));
    QCOMPARE(run.exitCode(), 0);
    OpenRequest request;
    request.files = {trace.toStdString(), sample("mobilenet_v2/mobilenet_v2.pte"), sample("mobilenet_v2/mobilenet_v2.etrecord")};
    window_->resize(1600, 1000);
    open(request);
    TimelineCanvas* timeline = window_->timeline();
    window_->show_view(View::kTimeline);
    QApplication::processEvents();
    timeline->render_frame_blocking();
    const auto& tracks = window_->workspace()->timeline().tracks();
    QCOMPARE(tracks.size(), size_t(13));
    QCOMPARE(timeline->lane_count(), size_t(3));  // Default, Warmup x2, Execute x10
    QCOMPARE(timeline->lane(2).size(), size_t(10));
    const auto typical = timeline->typical_run_track();
    QVERIFY(typical.has_value());
    QVERIFY(tracks[*typical].name.rfind("Execute #", 0) == 0);
    // Its duration is the median of the ten.
    std::vector<double> spans;
    for (size_t t : timeline->lane(2)) spans.push_back(tracks[t].end - tracks[t].start);
    std::sort(spans.begin(), spans.end());
    QCOMPARE(tracks[*typical].end - tracks[*typical].start, spans[4]);
    // The whole run is framed: it starts and ends inside the canvas and
    // fills most of it, and the longest ops are wide enough for their labels.
    const TimelineTrack& run_track = tracks[*typical];
    const Viewport& view = timeline->viewport();
    QVERIFY(view.x_of(run_track.start) >= 0);
    QVERIFY(view.x_of(run_track.end) <= timeline->width());
    QVERIFY(view.x_of(run_track.end) - view.x_of(run_track.start) >= 0.9 * timeline->width());
    QVERIFY2(timeline->labels_drawn() >= 5, std::to_string(timeline->labels_drawn()).c_str());
  }

  void mobilenetLinksEventsToModuleAndSource() {
    const QString trace = temp_.filePath("mobilenet_v2.etdp");
    QProcess run;
    run.start(ETINSPECT_PATH, {"run", QString::fromStdString(sample("mobilenet_v2/mobilenet_v2.pte")), "--etdump", trace});
    QVERIFY(run.waitForFinished(300000));
    QCOMPARE(run.exitCode(), 0);
    OpenRequest request;
    request.files = {trace.toStdString(), sample("mobilenet_v2/mobilenet_v2.pte"), sample("mobilenet_v2/mobilenet_v2.etrecord")};
    open(request);
    QVERIFY(window_->workspace()->errors().empty());
    QVERIFY(window_->workspace()->warnings().empty());
    const TimelineTrack& track = window_->workspace()->timeline().tracks().at(1);
    size_t conv = 0;
    while (track.name_of(track.events.at(conv)) != "native_call_convolution.out") ++conv;
    std::string joined;
    for (const std::string& line : window_->timeline()->tooltip_lines({1, conv})) joined += line + "\n";
    QVERIFY2(joined.find("module       ") != std::string::npos, joined.c_str());
    QVERIFY2(joined.find("source       ") != std::string::npos && joined.find(".py:") != std::string::npos, joined.c_str());
    QVERIFY2(joined.find("aten.convolution") != std::string::npos, joined.c_str());
    QTest::mouseClick(window_->timeline(), Qt::LeftButton, {},
                      window_->timeline()->event_rect({1, conv}).value_or(QRectF()).center().toPoint());
    window_->select_event(size_t(track.group), size_t(track.events[conv].row));
    const QString details = window_->details()->text();
    QVERIFY2(details.contains("module hierarchy") && details.contains(".py:"), qPrintable(details));
  }

  // A traced generation: the Tokens view plots one bar per step (prefill
  // and decode), and a click on a step frames that step's run in the
  // timeline with its span selected, and the details show that run.
  void tokensViewPlotsEveryStepAndAClickShowsItsRun() {
    const QString trace = temp_.filePath("tiny_llama.etdp");
    QProcess run;
    run.start(ETINSPECT_PATH, {"generate", QString::fromStdString(sample("tiny_llama/tiny_llama.pte")),
                               "--prompt-tokens", "1,17,42,7", "--max-new", "12", "--etdump", trace});
    QVERIFY(run.waitForFinished(120000));
    QCOMPARE(run.exitCode(), 0);
    OpenRequest request;
    request.files = {trace.toStdString(), sample("tiny_llama/tiny_llama.pte"), sample("tiny_llama/tiny_llama.etrecord")};
    open(request);
    StepsCanvas* steps = window_->steps();
    QCOMPARE(int(steps->steps().size()), 4 + 11);  // 4 prefill steps, then 11 decode (the prefill samples the first)
    int decode = 0;
    for (const auto& step : steps->steps()) decode += step.decode ? 1 : 0;
    QCOMPARE(decode, 11);
    QCOMPARE(steps->steps().back().context, int64_t(15));
    window_->show_view(View::kSteps);
    QApplication::processEvents();
    // Each bar stacks its step's ops by type (the five largest types and
    // the rest), no step's ops longer than the step.
    QVERIFY(steps->by_op());
    const StepBreakdown& stack = steps->breakdown();
    QCOMPARE(stack.ns.size(), steps->steps().size());
    QVERIFY(!stack.keys.empty() && stack.keys.size() <= 6);
    for (size_t s = 0; s < stack.ns.size(); ++s) {
      double ops = 0;
      for (double ns : stack.ns[s]) ops += ns;
      QVERIFY(ops > 0 && ops <= steps->steps()[s].latency());
    }
    // The last step's bar: the plot spans the canvas less its margins (16 px
    // right, 42 px below for the phase strip and labels), one bar per step.
    const int x = steps->width() - 16 - 2, y = steps->height() - 42 - 2;
    QTest::mouseClick(steps, Qt::LeftButton, {}, QPoint(x, y));
    QApplication::processEvents();
    const auto& last = steps->steps().back();
    QVERIFY(window_->timeline()->range().has_value());
    QCOMPARE(window_->timeline()->range()->first, last.start);
    QCOMPARE(window_->timeline()->range()->second, last.end);
    const auto selected = window_->timeline()->selection();
    QVERIFY(selected.has_value());
    QCOMPARE(window_->workspace()->timeline().tracks().at(selected->first).block, last.trace_block);
    // The step's run is the selection everywhere: the details show it.
    QVERIFY2(window_->details()->text().contains("Method::execute"), qPrintable(window_->details()->text()));
  }

  // The size view: a treemap of the program file whose top parts add up to
  // it; a click opens the part under it, a right-click goes back up.
  void sizeViewOpensThePartUnderAClick() {
    OpenRequest request;
    request.files = {sample("mobilenet_v2/mobilenet_v2.pte")};
    open(request);
    SizeCanvas* view = window_->size_view();
    window_->show_view(View::kSize);
    QApplication::processEvents();
    QVERIFY(!view->cells().empty());
    double top_area = 0, canvas_area = 0;
    const TreemapCell* segments = nullptr;
    for (const TreemapCell& c : view->cells()) {
      if (c.depth == 1) top_area += c.rect.area();
      if (c.path == "segments") segments = &c;
    }
    canvas_area = double(view->width() - 8) * double(view->height() - 50 - 4);
    QVERIFY(std::abs(top_area - canvas_area) < 1.0);
    QVERIFY(segments != nullptr);
    QTest::mouseClick(view, Qt::LeftButton, {},
                      QPoint(int(segments->rect.x + segments->rect.w / 2), int(segments->rect.y + segments->rect.h / 2)));
    QCOMPARE(QString::fromStdString(view->focused()), QString("segments"));
    QTest::mouseClick(view, Qt::RightButton, {}, QPoint(view->width() / 2, view->height() / 2));
    QCOMPARE(QString::fromStdString(view->focused()), QString());
  }

  // With the ETRecord, a constant in the size treemap names the op that
  // reads it, and clicking it shows that op in the graph.
  void sizeTreemapConstantLeadsToItsOpInTheGraph() {
    OpenRequest request;
    request.files = {sample("mobilenet_v2/mobilenet_v2.pte"), sample("mobilenet_v2/mobilenet_v2.etrecord")};
    open(request);
    SizeCanvas* view = window_->size_view();
    window_->show_view(View::kSize);
    QApplication::processEvents();
    const TreemapCell* largest = nullptr;
    for (const TreemapCell& c : view->cells()) {
      if (c.part->parts.empty() && c.part->instruction >= 0 && (largest == nullptr || c.rect.area() > largest->rect.area())) {
        largest = &c;
      }
    }
    QVERIFY(largest != nullptr);
    QVERIFY(QString::fromStdString(largest->part->detail).startsWith("read by aten_convolution_default_51"));  // the 160 -> 1280 conv
    const int32_t instruction = largest->part->instruction;
    QTest::mouseClick(view, Qt::LeftButton, {},
                      QPoint(int(largest->rect.x + largest->rect.w / 2), int(largest->rect.y + largest->rect.h / 2)));
    QCOMPARE(window_->graph_view()->selected_instruction(), instruction);
    QVERIFY(window_->graph_view()->isVisible());
    // Laid out off the UI thread, then the selected op is brought into view.
    window_->graph_view()->render_frame_blocking();
    QTRY_VERIFY_WITH_TIMEOUT(window_->workspace()->graph_laid_out(), 60000);
    window_->graph_view()->render_frame_blocking();
    const auto at = window_->graph_view()->screen_of_instruction(instruction);
    QVERIFY(at.has_value());
    QVERIFY(window_->graph_view()->rect().contains(at->toPoint()));
  }

  // MobileNetV2's graph: Fit folds its tall chain into columns that fill
  // the view; grouped two modules deep it reads as its blocks, the
  // selected op's block outlined; a double-click opens that block and a
  // right-click closes it again.
  void graphFitsInColumnsAndGroupsByModule() {
    OpenRequest request;
    request.files = {sample("mobilenet_v2/mobilenet_v2.pte"), sample("mobilenet_v2/mobilenet_v2.etrecord")};
    open(request);
    GraphCanvas* graph = window_->graph_view();
    window_->show_view(View::kGraph);
    QApplication::processEvents();
    graph->render_frame_blocking();
    QTRY_VERIFY_WITH_TIMEOUT(window_->workspace()->graph_laid_out(), 60000);
    graph->render_frame_blocking();
    const size_t ops = window_->workspace()->graph()->nodes.size();
    graph->fit();
    graph->render_frame_blocking();
    const OpGraph* fitted = graph->graph();
    QVERIFY(fitted->width > 3 * window_->workspace()->graph()->width);  // columns side by side
    QCOMPARE(fitted->nodes.size(), ops);
    graph->set_module_depth(2);
    graph->render_frame_blocking();
    const OpGraph* blocks = graph->graph();
    QVERIFY(blocks != nullptr && blocks->laid_out);
    const size_t block_count = blocks->nodes.size();  // the canvas's graph changes with the grouping
    QVERIFY(block_count < ops / 4);
    // The first convolution selected: its block (features.0) is outlined.
    int32_t first_convolution = -1;
    for (const OpNode& node : window_->workspace()->graph()->nodes) {
      if (node.label == "convolution" && (first_convolution < 0 || node.instruction < first_convolution)) {
        first_convolution = node.instruction;
      }
    }
    graph->select_instruction(first_convolution);
    graph->render_frame_blocking();
    const OpNode* outlined = nullptr;
    for (const OpNode& node : blocks->nodes) {
      if (graph->selected(node)) outlined = &node;
    }
    QVERIFY(outlined != nullptr);
    QCOMPARE(QString::fromStdString(outlined->module_group), QString("features.0"));
    const std::string block = outlined->module_group;
    const auto at = graph->screen_of_instruction(graph->selected_instruction());
    QVERIFY(at.has_value());
    QTest::mouseDClick(graph, Qt::LeftButton, {}, at->toPoint());
    graph->render_frame_blocking();
    for (const OpNode& node : graph->graph()->nodes) QVERIFY(node.module_group != block);
    QVERIFY(graph->graph()->nodes.size() > block_count);
    graph->render_frame_blocking();
    const auto inside = graph->screen_of_instruction(graph->selected_instruction());
    QVERIFY(inside.has_value());
    QTest::mouseClick(graph, Qt::RightButton, {}, inside->toPoint());
    graph->render_frame_blocking();
    bool closed_again = false;
    for (const OpNode& node : graph->graph()->nodes) closed_again |= node.module_group == block;
    QVERIFY(closed_again);
  }

  void graphViewOpensReadableAndSelectsBothWays() {
    open(tutorial());
    GraphCanvas* graph = window_->graph_view();
    QVERIFY(!window_->workspace()->graph_laid_out());  // not before the view is opened
    window_->show_view(View::kGraph);
    QApplication::processEvents();
    graph->render_frame_blocking();  // asks for the layout, on the thread pool
    QTRY_VERIFY_WITH_TIMEOUT(window_->workspace()->graph_laid_out(), 60000);
    graph->render_frame_blocking();
    QVERIFY(graph->graph() != nullptr);
    // The opening view draws every op's label (the tutorial CNN fits the canvas).
    QCOMPARE(graph->labels_drawn(), graph->graph()->nodes.size());
    // Click the node of instruction 2: the table selects that instruction's kernel event.
    const auto at = graph->screen_of_instruction(2);
    QVERIFY(at.has_value());
    QTest::mouseClick(graph, Qt::LeftButton, {}, at->toPoint());
    QCOMPARE(graph->selected_instruction(), 2);
    const auto selected = window_->events()->selected_event();
    QVERIFY(selected.has_value());
    const etkit::inspector::Event& event = window_->workspace()->blocks()[selected->first].events[selected->second];
    QCOMPARE(event.instruction_id, 2);
    // And back: selecting another event in the table selects its node.
    QVERIFY(window_->select_event_named("native_call_addmm.out"));
    const auto now = window_->events()->selected_event();
    QVERIFY(now.has_value());
    QCOMPARE(graph->selected_instruction(),
             window_->workspace()->blocks()[now->first].events[now->second].instruction_id);
  }

  // A delegated op selected in the table outlines its own node of the
  // expanded delegate call, not every op of the call.
  void aDelegatedOpSelectsItsOwnNodeOfTheDelegateCall() {
    const QString trace = temp_.filePath("mnv2_xnnpack.etdp");
    const std::string pte = sample("mobilenet_v2_xnnpack/mobilenet_v2_xnnpack.pte");
    QProcess run;
    run.start(ETINSPECT_PATH, {"run", QString::fromStdString(pte), "--etdump", trace});
    QVERIFY(run.waitForFinished(120000));
    QCOMPARE(run.exitCode(), 0);
    OpenRequest request;
    request.files = {trace.toStdString(), pte, sample("mobilenet_v2_xnnpack/mobilenet_v2_xnnpack.etrecord")};
    open(request);
    GraphCanvas* graph = window_->graph_view();
    graph->set_expanded(true);
    QVERIFY(graph->graph() != nullptr);
    const auto& blocks = window_->workspace()->blocks();
    std::optional<std::pair<size_t, size_t>> delegated;
    for (size_t b = 0; b < blocks.size() && !delegated; ++b) {
      for (size_t e = 0; e < blocks[b].events.size(); ++e) {
        const etkit::inspector::Event& event = blocks[b].events[e];
        // A convolution (the payload's first nodes, a layout transpose, carry
        // XNNPACK's 65535: no graph node).
        if (blocks[b].name == "Execute" && event.is_delegated_op && event.name.find("Convolution") != std::string::npos) {
          delegated = std::make_pair(b, e);
          break;
        }
      }
    }
    QVERIFY(delegated.has_value());
    window_->select_event(delegated->first, delegated->second);
    const int32_t call = blocks[delegated->first].events[delegated->second].instruction_id;
    size_t of_call = 0, outlined = 0;
    for (const OpNode& node : graph->graph()->nodes) {
      of_call += node.instruction == call ? 1 : 0;
      outlined += graph->selected(node) ? 1 : 0;
    }
    QVERIFY2(of_call > 10, qPrintable(QString::number(of_call)));  // the call's ops, expanded
    QVERIFY2(outlined >= 1 && outlined <= 2, qPrintable(QString("%1 of %2").arg(outlined).arg(of_call)));
  }

  void screenshotsOfEveryViewAreNonBlankAndOfTheRequestedSize() {
    const OpenRequest t = tutorial();
    QStringList files;
    for (const std::string& f : t.files) files << QString::fromStdString(f);
    for (const QString view : {"timeline", "table", "memory", "gap"}) {
      const QString png = temp_.filePath(view + ".png");
      QStringList args = files;
      args << "--reference" << QString::fromStdString(corpus("upstream-runtime/tutorial_cnn_intermediates.etdp"))
           << "--reference-debug-buffer" << QString::fromStdString(corpus("upstream-runtime/tutorial_cnn_intermediates.bin"))
           << "--screenshot" << png << "--view" << view << "--size" << "900x640";
      QProcess gui;
      gui.start(ETINSPECT_GUI_PATH, args);
      QVERIFY(gui.waitForFinished(120000));
      QVERIFY2(gui.exitCode() == 0, qPrintable(view + ": " + gui.readAllStandardError()));
      const QImage image(png);
      QCOMPARE(image.size(), QSize(900, 640));
      QVERIFY2(distinct_colours(image) > 20, qPrintable(view));
    }
    // Bad arguments are usage errors, not crashes.
    QProcess bad;
    bad.start(ETINSPECT_GUI_PATH, {files[0], "--screenshot", temp_.filePath("x.png"), "--view", "nope"});
    QVERIFY(bad.waitForFinished(60000));
    QCOMPARE(bad.exitCode(), 2);
    QVERIFY(bad.readAllStandardError().contains("--view 'nope'"));
  }
};

int main(int argc, char** argv) {
  use_imgui_gl_format();
  QApplication app(argc, argv);
  QApplication::setOrganizationName("etkit-tests");  // keep the user's recent files alone
  GuiAppTest test;
  return QTest::qExec(&test, argc, argv);
}

#include "gui_app_test.moc"
