#pragma once
// Headless use, for docs, tests and CI: a screenshot of one view, and the
// frame-time benchmark of the timeline.

#include <QString>
#include <QSize>

namespace etkit::gui {

class MainWindow;
enum class View;

/// Shows `view` at `size`, renders it and writes the window to `path` (PNG).
/// Returns an error message, empty on success.
QString write_screenshot(MainWindow& window, View view, QSize size, const QString& path);

/// Draws `frames` full frames of the timeline fitted to the whole trace and
/// prints one JSON line: open time, events, frames, median and p90 frame
/// milliseconds, peak resident memory.
void bench_frames(MainWindow& window, View view, int frames, double open_seconds, QSize size);

}  // namespace etkit::gui
