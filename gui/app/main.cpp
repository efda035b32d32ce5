// etinspect-gui FILE... : the desktop app. Files are placed by their bytes;
// the flags name roles a file's bytes cannot tell (a debug buffer, a
// reference folder) as `etinspect gap` does.
//
//   --screenshot OUT.png --view timeline|table|memory|gap|tokens|size|graph --size WxH [--select NAME]
//                [--graph-modules N]
//   --bench-frames N   (timeline frame times, one JSON line)

#include <QApplication>
#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <cstdio>
#include <cstring>
#include <optional>

#include "etkit/inspector/event_blocks.h"
#include "gap_canvas.h"
#include "headless.h"
#include "imgui_canvas.h"
#include "graph_canvas.h"
#include "main_window.h"

namespace {

int usage_error(const QString& message) {
  std::fprintf(stderr, "etinspect-gui: error: %s\n", message.toLocal8Bit().constData());
  return 2;
}

// The command line, checked: files and roles to open, and what to do headless.
struct Options {
  etkit::gui::OpenRequest request;
  QSize size;
  etkit::gui::View view = etkit::gui::View::kTimeline;
  QString screenshot;
  QString select;
  float quanta = 0;
  int bench_frames = 0;
  int graph_modules = 0;  ///< the graph view's module depth (0: every op)
};

// --size WxH, within what a window can take.
bool parse_size(const QString& text, QSize& size, QString& error) {
  const QStringList dims = text.split('x');
  bool width_ok = false, height_ok = false;
  size = QSize(dims.value(0).toInt(&width_ok), dims.value(1).toInt(&height_ok));
  if (dims.size() != 2 || !width_ok || !height_ok || size.width() < 200 || size.height() < 150 ||
      size.width() > 8192 || size.height() > 8192) {
    error = "--size '" + text + "' is not WxH with 200 <= W, 150 <= H, both <= 8192";
    return false;
  }
  return true;
}

// --view NAME, in the order of the View enum.
bool parse_view(const QString& text, etkit::gui::View& view, QString& error) {
  const QStringList views = {"timeline", "table", "memory", "gap", "tokens", "size", "graph"};
  const int index = views.indexOf(text);
  if (index < 0) {
    error = "--view '" + text + "' is not one of " + views.join(", ");
    return false;
  }
  view = etkit::gui::View(index);
  return true;
}

// --bench-frames N: a whole number >= 1.
bool parse_frames(const QString& text, int& frames, QString& error) {
  bool ok = false;
  frames = text.toInt(&ok);
  if (ok && frames >= 1) return true;
  error = "--bench-frames '" + text + "' is not a whole number >= 1";
  return false;
}

// The trace's clock; a cycle count stays cycles in the table.
bool parse_source_unit(const QString& text, etkit::gui::OpenRequest& request, QString& error) {
  const auto unit = etkit::inspector::parse_time_unit(text.toStdString());
  if (!unit.ok()) {
    error = "--source-time-unit: " + QString::fromStdString(unit.error().message());
    return false;
  }
  request.source_unit = *unit;
  if (*unit == etkit::inspector::TimeUnit::kCycles) request.table_unit = etkit::inspector::TimeUnit::kCycles;
  return true;
}

bool parse_quanta(const QString& text, float& quanta, QString& error) {
  bool ok = false;
  quanta = text.toFloat(&ok);
  if (ok && quanta >= 0) return true;
  error = "--quanta: '" + text + "' is not a number of quantization steps (0 or more)";
  return false;
}

// --graph-modules N: a module depth, 0 (every op) to 16.
bool parse_graph_modules(const QString& text, int& depth, QString& error) {
  bool ok = false;
  depth = text.toInt(&ok);
  if (ok && depth >= 0 && depth <= 16) return true;
  error = "--graph-modules: '" + text + "' is not a module depth from 0 (every op) to 16";
  return false;
}

// The files on the command line and the roles its flags name.
void read_roles(const QCommandLineParser& parser, etkit::gui::OpenRequest& request) {
  for (const QString& file : parser.positionalArguments()) request.files.push_back(file.toStdString());
  const auto value = [&parser](const char* name) { return parser.value(QString(name)).toStdString(); };
  request.program = value("program");
  request.etrecord = value("etrecord");
  request.debug_buffer = value("debug-buffer");
  request.baseline = value("baseline");
  request.reference = value("reference");
  request.reference_debug_buffer = value("reference-debug-buffer");
  request.reference_program = value("reference-program");
  request.reference_etrecord = value("reference-etrecord");
  request.method = value("method");
}

// The options, or the usage error to print (exit 2).
std::optional<Options> parse(const QCoreApplication& app, QString& error) {
  QCommandLineParser parser;
  parser.setApplicationDescription("Where the time goes in an ExecuTorch program: timeline, events, memory, gaps.");
  parser.addHelpOption();
  parser.addPositionalArgument("FILE", "Traces, programs, bundles, ETRecords, debug buffers (kinds by their bytes).",
                               "[FILE...]");
  const QCommandLineOption program(QString("program"), "Program (.pte/.bpte) of the trace.", "PTE");
  const QCommandLineOption etrecord(QString("etrecord"), "ETRecord of the program.", "ETRECORD");
  const QCommandLineOption debug_buffer(QString("debug-buffer"), "The trace's debug buffer.", "BIN");
  const QCommandLineOption baseline(QString("baseline"), "A second trace to compare with.", "ETDP");
  const QCommandLineOption reference(QString("reference"), "Numeric-gap reference: a folder of .npy or a trace.", "DIR|ETDP");
  const QCommandLineOption reference_buffer(QString("reference-debug-buffer"), "Debug buffer of a reference trace.", "BIN");
  const QCommandLineOption reference_program(QString("reference-program"),
                                             "The reference trace's program (its delegates' values).", "PTE");
  const QCommandLineOption reference_etrecord(QString("reference-etrecord"),
                                              "ETRecord of the reference's program: match ops by graph node name.",
                                              "ETRECORD");
  const QCommandLineOption method(QString("method"), "Method to link and analyze.", "NAME", "forward");
  const QCommandLineOption source_unit(QString("source-time-unit"), "Unit of the trace's timestamps.", "UNIT", "ns");
  const QCommandLineOption screenshot(QString("screenshot"), "Write a PNG of one view and exit.", "OUT.png");
  const QCommandLineOption view(QString("view"), "View for --screenshot: timeline, table, memory, gap, tokens, size, graph.", "VIEW", "timeline");
  const QCommandLineOption size(QString("size"), "Window size for --screenshot and --bench-frames.", "WxH", "1600x1000");
  const QCommandLineOption select_name(QString("select"), "Select the first event of this name (for --screenshot).",
                                       "NAME");
  const QCommandLineOption quanta(QString("quanta"),
                                  "Numeric gap: judge int8 values in K quantization steps (as etinspect gap --quanta).",
                                  "K");
  const QCommandLineOption bench(QString("bench-frames"), "Draw N timeline frames, print their times as JSON, exit.", "N");
  const QCommandLineOption graph_modules(QString("graph-modules"),
                                         "Graph view: group ops into their modules N deep, for --screenshot (0: every op).", "N");
  parser.addOptions({program, etrecord, debug_buffer, baseline, reference, reference_buffer, reference_program,
                     reference_etrecord, method, source_unit, screenshot, view, size, select_name, quanta, bench,
                     graph_modules});
  parser.process(app);

  Options options;
  etkit::gui::OpenRequest& request = options.request;
  read_roles(parser, request);
  if (!parse_source_unit(parser.value(source_unit), request, error)) return std::nullopt;

  if (!parse_size(parser.value(size), options.size, error) || !parse_view(parser.value(view), options.view, error)) {
    return std::nullopt;
  }
  if (parser.isSet(bench) && !parse_frames(parser.value(bench), options.bench_frames, error)) return std::nullopt;
  options.screenshot = parser.value(screenshot);
  options.select = parser.value(select_name);
  if (parser.isSet(quanta) && !parse_quanta(parser.value(quanta), options.quanta, error)) return std::nullopt;
  if (parser.isSet(graph_modules) && !parse_graph_modules(parser.value(graph_modules), options.graph_modules, error)) {
    return std::nullopt;
  }
  if ((!options.screenshot.isEmpty() || options.bench_frames > 0) && request.empty()) {
    error = "--screenshot and --bench-frames need files to open";
    return std::nullopt;
  }
  return options;
}

// Opens the files, then writes the screenshot or runs the frame benchmark.
// Exit 1 when a file could not be used.
int run_headless(etkit::gui::MainWindow& window, const Options& options) {
  QElapsedTimer timer;
  timer.start();
  window.open_blocking(options.request, false);
  const double open_seconds = double(timer.nsecsElapsed()) / 1e9;
  for (const auto& problem : window.workspace()->errors()) {
    std::fprintf(stderr, "etinspect-gui: error: '%s': %s\n", problem.path.c_str(), problem.message.c_str());
  }
  if (!options.select.isEmpty() && !window.select_event_named(options.select.toStdString())) {
    return usage_error("--select: no event named '" + options.select + "' in the trace");
  }
  if (options.quanta > 0) window.gap()->set_quanta(options.quanta);
  if (options.graph_modules > 0) {
    window.lay_out_graph_now();  // grouping starts from the laid-out graph
    window.graph_view()->set_module_depth(size_t(options.graph_modules));
  }
  if (options.bench_frames > 0) {
    etkit::gui::bench_frames(window, options.view, options.bench_frames, open_seconds, options.size);
  } else {
    const QString error = etkit::gui::write_screenshot(window, options.view, options.size, options.screenshot);
    if (!error.isEmpty()) return usage_error(error);
  }
  return window.workspace()->errors().empty() ? 0 : 1;
}

}  // namespace

// --help needs no display: answered before any window system is opened.
bool asks_for_help(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "-h") == 0 || std::strcmp(argv[i], "--help") == 0 ||
        std::strcmp(argv[i], "--help-all") == 0 || std::strcmp(argv[i], "-?") == 0) {
      return true;
    }
  }
  return false;
}

int main(int argc, char** argv) {
  if (asks_for_help(argc, argv)) {
    QCoreApplication core(argc, argv);
    QCoreApplication::setApplicationName("etinspect-gui");
    QString error;
    parse(core, error);  // prints the help and exits
    return 0;
  }
  etkit::gui::use_imgui_gl_format();
  QApplication app(argc, argv);
  QApplication::setApplicationName("etinspect-gui");
  QApplication::setOrganizationName("etkit");
  QString error;
  const std::optional<Options> options = parse(app, error);
  if (!options) return usage_error(error);
  etkit::gui::MainWindow window;
  if (!options->screenshot.isEmpty() || options->bench_frames > 0) return run_headless(window, *options);
  window.resize(options->size);
  window.show();
  if (options->quanta > 0) window.gap()->set_quanta(options->quanta);
  if (!options->request.empty()) window.open(options->request, false);
  return app.exec();
}
