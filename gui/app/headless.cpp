#include "headless.h"

#include <QApplication>
#include <QDockWidget>
#include <QFile>
#include <QImage>
#include <QPixmap>
#include <QStatusBar>
#include <QTextStream>
#include <algorithm>
#include <cstdio>
#include <vector>

#include "main_window.h"
#include "graph_canvas.h"
#include "timeline_canvas.h"
#include "etkit/gui/workspace.h"

namespace etkit::gui {
namespace {

// Peak resident memory of this process in MB (VmHWM), 0 when unknown.
double peak_rss_mb() {
  QFile status("/proc/self/status");
  if (!status.open(QIODevice::ReadOnly)) return 0;
  QTextStream in(&status);
  for (QString line = in.readLine(); !line.isNull(); line = in.readLine()) {
    if (line.startsWith("VmHWM:")) return line.split(' ', Qt::SkipEmptyParts).value(1).toDouble() / 1024.0;
  }
  return 0;
}

void settle(int rounds = 5) {
  for (int i = 0; i < rounds; ++i) QApplication::processEvents();
}

}  // namespace

QString write_screenshot(MainWindow& window, View view, QSize size, const QString& path) {
  if (view == View::kGraph) window.lay_out_graph_now();  // a user would wait for it: the picture does too
  window.resize(size);
  window.show_view(view);
  window.show();
  settle();
  // Two frames: the first lays out ImGui windows (tooltips, tables), the
  // second draws them where they belong.
  window.grab();
  settle();
  const QPixmap pixmap = window.grab();
  QImage image = pixmap.toImage();
  if (image.size() != size) image = image.scaled(size, Qt::IgnoreAspectRatio, Qt::SmoothTransformation);
  if (!image.save(path, "PNG")) return QString("cannot write %1").arg(path);
  return {};
}

void bench_frames(MainWindow& window, View view, int frames, double open_seconds, QSize size) {
  // The timeline (or the graph) alone fills the window, as a user maximizing it would.
  for (QDockWidget* dock : window.findChildren<QDockWidget*>()) dock->hide();
  window.statusBar()->hide();
  window.resize(size);
  const bool graph = view == View::kGraph;
  if (graph) window.lay_out_graph_now();  // timed by layout_op_graph itself: graph_layout_seconds
  window.show_view(graph ? View::kGraph : View::kTimeline);
  window.show();
  settle();
  ImGuiCanvas* canvas = graph ? static_cast<ImGuiCanvas*>(window.graph_view()) : window.timeline();
  if (graph) window.graph_view()->fit();
  else window.timeline()->fit_all();
  canvas->render_frame_blocking();  // warm-up: font atlas, shaders
  std::vector<double> times;
  for (int i = 0; i < frames; ++i) times.push_back(canvas->render_frame_blocking());
  std::sort(times.begin(), times.end());
  const double median = times.empty() ? 0 : times[times.size() / 2];
  const double p90 = times.empty() ? 0 : times[std::min(times.size() - 1, size_t(double(times.size()) * 0.9))];
  const size_t events = window.workspace() != nullptr ? window.workspace()->timeline().event_count() : 0;
  const OpGraph* ops = window.workspace() != nullptr ? window.workspace()->graph() : nullptr;
  std::printf(
      "{\"view\": \"%s\", \"open_seconds\": %.3f, \"events\": %zu, \"graph_nodes\": %zu, \"graph_edges\": %zu, "
      "\"graph_layout_seconds\": %.3f, \"frames\": %d, \"frame_ms\": {\"median\": %.2f, \"p90\": %.2f}, "
      "\"rss_mb\": %.1f, \"canvas\": [%d, %d]}\n",
      graph ? "graph" : "timeline", open_seconds, events, ops ? ops->nodes.size() : 0, ops ? ops->edges.size() : 0,
      ops ? ops->layout_seconds : 0.0, frames, median, p90, peak_rss_mb(), canvas->width(), canvas->height());
  std::fflush(stdout);
}

}  // namespace etkit::gui
