// etinspect-gui FILE... : the desktop app. Files are placed by their bytes;
// the flags name roles a file's bytes cannot tell (a debug buffer, a
// reference folder) as `etinspect gap` does.
//
//   --screenshot OUT.png --view timeline|table|memory|gap --size WxH [--select NAME]
//   --bench-frames N   (timeline frame times, one JSON line)

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QSurfaceFormat>
#include <cstdio>

#include "etkit/inspector/event_blocks.h"
#include "headless.h"
#include "main_window.h"

namespace {

int usage_error(const QString& message) {
  std::fprintf(stderr, "etinspect-gui: error: %s\n", message.toLocal8Bit().constData());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  // ImGui's OpenGL3 renderer wants a core profile; set before the app exists.
  QSurfaceFormat format;
  format.setVersion(3, 3);
  format.setProfile(QSurfaceFormat::CoreProfile);
  QSurfaceFormat::setDefaultFormat(format);
  QApplication app(argc, argv);
  QApplication::setApplicationName("etinspect-gui");
  QApplication::setOrganizationName("etkit");

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
  const QCommandLineOption method(QString("method"), "Method to link and analyze.", "NAME", "forward");
  const QCommandLineOption source_unit(QString("source-time-unit"), "Unit of the trace's timestamps.", "UNIT", "ns");
  const QCommandLineOption screenshot(QString("screenshot"), "Write a PNG of one view and exit.", "OUT.png");
  const QCommandLineOption view(QString("view"), "View for --screenshot: timeline, table, memory, gap.", "VIEW", "timeline");
  const QCommandLineOption size(QString("size"), "Window size for --screenshot and --bench-frames.", "WxH", "1600x1000");
  const QCommandLineOption select_name(QString("select"), "Select the first event of this name (for --screenshot).",
                                       "NAME");
  const QCommandLineOption bench(QString("bench-frames"), "Draw N timeline frames, print their times as JSON, exit.", "N");
  parser.addOptions({program, etrecord, debug_buffer, baseline, reference, reference_buffer, method, source_unit,
                     screenshot, view, size, select_name, bench});
  parser.process(app);

  etkit::gui::OpenRequest request;
  for (const QString& file : parser.positionalArguments()) request.files.push_back(file.toStdString());
  request.program = parser.value(program).toStdString();
  request.etrecord = parser.value(etrecord).toStdString();
  request.debug_buffer = parser.value(debug_buffer).toStdString();
  request.baseline = parser.value(baseline).toStdString();
  request.reference = parser.value(reference).toStdString();
  request.reference_debug_buffer = parser.value(reference_buffer).toStdString();
  request.method = parser.value(method).toStdString();
  const auto unit = etkit::inspector::parse_time_unit(parser.value(source_unit).toStdString());
  if (!unit.ok()) return usage_error("--source-time-unit: " + QString::fromStdString(unit.error().message()));
  request.source_unit = *unit;
  if (request.source_unit == etkit::inspector::TimeUnit::kCycles) request.table_unit = etkit::inspector::TimeUnit::kCycles;

  const QStringList dims = parser.value(size).split('x');
  bool width_ok = false, height_ok = false;
  const QSize window_size(dims.value(0).toInt(&width_ok), dims.value(1).toInt(&height_ok));
  if (dims.size() != 2 || !width_ok || !height_ok || window_size.width() < 200 || window_size.height() < 150 ||
      window_size.width() > 8192 || window_size.height() > 8192) {
    return usage_error("--size '" + parser.value(size) + "' is not WxH with 200 <= W, 150 <= H, both <= 8192");
  }
  const QStringList views = {"timeline", "table", "memory", "gap"};
  const int view_index = views.indexOf(parser.value(view));
  if (view_index < 0) return usage_error("--view '" + parser.value(view) + "' is not one of " + views.join(", "));
  int frames = 0;
  if (parser.isSet(bench)) {
    bool ok = false;
    frames = parser.value(bench).toInt(&ok);
    if (!ok || frames < 1) return usage_error("--bench-frames '" + parser.value(bench) + "' is not a whole number >= 1");
  }
  if ((parser.isSet(screenshot) || frames > 0) && request.empty()) {
    return usage_error("--screenshot and --bench-frames need files to open");
  }

  etkit::gui::MainWindow window;
  if (parser.isSet(screenshot) || frames > 0) {
    QElapsedTimer timer;
    timer.start();
    window.open_blocking(request, false);
    const double open_seconds = double(timer.nsecsElapsed()) / 1e9;
    for (const auto& problem : window.workspace()->errors()) {
      std::fprintf(stderr, "etinspect-gui: error: '%s': %s\n", problem.path.c_str(), problem.message.c_str());
    }
    if (parser.isSet(select_name) && !window.select_event_named(parser.value(select_name).toStdString())) {
      return usage_error("--select: no event named '" + parser.value(select_name) + "' in the trace");
    }
    if (frames > 0) {
      etkit::gui::bench_frames(window, frames, open_seconds, window_size);
    } else {
      const QString error = etkit::gui::write_screenshot(window, etkit::gui::View(view_index), window_size,
                                                         parser.value(screenshot));
      if (!error.isEmpty()) return usage_error(error);
    }
    return window.workspace()->errors().empty() ? 0 : 1;
  }
  window.resize(window_size);
  window.show();
  if (!request.empty()) window.open(request, false);
  return app.exec();
}
