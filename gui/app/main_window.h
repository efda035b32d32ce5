#pragma once
// The main window: a workspace's views (timeline, events table, memory,
// numeric gap) as tabs, the details and files panels as docks, loading on a
// worker thread with a progress bar, and the selection kept in step across
// views.

#include <QFutureWatcher>
#include <QMainWindow>
#include <memory>
#include <optional>

#include "etkit/gui/timeline_style.h"
#include "etkit/gui/workspace.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QMenu;
class QProgressBar;
class QTabWidget;

namespace etkit::gui {

class DetailsPanel;
class EventsView;
class FilesPanel;
class GapCanvas;
class MemoryCanvas;
class StepsCanvas;
class SizeCanvas;
class GraphCanvas;
class TimelineCanvas;

enum class View { kTimeline, kTable, kMemory, kGap, kSteps, kSize, kGraph };

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  MainWindow();
  ~MainWindow() override;

  /// Opens `request` on a worker thread; with `merge`, its files join the
  /// current workspace's (a new trace replaces the old one).
  void open(const OpenRequest& request, bool merge);
  /// The same, returning when the workspace is shown (headless use, tests).
  void open_blocking(const OpenRequest& request, bool merge);
  bool loading() const;
  const Workspace* workspace() const { return workspace_.get(); }

  void show_view(View view);
  /// Selects event `event` of block `block` in the table, the timeline
  /// (framed unless `frame` is false) and the details panel.
  void select_event(size_t block, size_t event, bool frame = true);
  /// Selects the first event named `name` without framing it; false when
  /// there is none.
  bool select_event_named(const std::string& name);
  /// Selects the first event of instruction `id` in the first Execute block.
  /// Selects the Execute event of instruction `id` (with `handles`: the one
  /// carrying one of them, a delegated op inside its delegate call).
  void select_instruction(int32_t id, const std::vector<int64_t>& handles = {});
  /// Lays out the op graph now, on this thread, if it is not yet (headless
  /// screenshots and benchmarks; the graph view asks for it off the UI
  /// thread by itself).
  void lay_out_graph_now();

  TimelineCanvas* timeline() const { return timeline_; }
  EventsView* events() const { return events_; }
  DetailsPanel* details() const { return details_; }
  FilesPanel* files() const { return files_; }
  MemoryCanvas* memory() const { return memory_; }
  GapCanvas* gap() const { return gap_; }
  StepsCanvas* steps() const { return steps_; }
  SizeCanvas* size_view() const { return size_; }
  GraphCanvas* graph_view() const { return graph_; }
  QLineEdit* search_box() const { return search_; }

 signals:
  void workspace_shown();

 protected:
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  QWidget* make_timeline_tab();
  QWidget* make_memory_tab();
  void make_menus();
  void connect_views();
  void detach_views();
  void rebuild_recent_menu();
  void remember(const OpenRequest& request);
  void show_workspace(std::unique_ptr<Workspace> workspace);
  void show_event_details(size_t block, size_t event);
  void on_timeline_selected(size_t track, size_t index);
  void open_dialog(bool baseline);
  void reference_dialog(bool folder);
  void lay_out_graph();

  std::unique_ptr<Workspace> workspace_;
  std::unique_ptr<TimelineStyle> style_;
  QFutureWatcher<Workspace*>* watcher_;
  std::optional<std::pair<OpenRequest, bool>> queued_;  // an open asked for while loading
  uint64_t shown_count_ = 0;  // workspaces shown so far (open_blocking waits for its own)
  QFutureWatcher<OpGraphs>* layout_watcher_;
  uint64_t layout_for_ = 0;  // the shown_count_ of the workspace being laid out
  QTabWidget* tabs_;
  TimelineCanvas* timeline_;
  QLineEdit* search_;
  QComboBox* colour_by_;
  QCheckBox* show_baseline_;
  QLabel* search_count_;
  QLabel* comparison_;  ///< the verdict line, with a baseline
  EventsView* events_;
  MemoryCanvas* memory_;
  QComboBox* memory_method_;
  QCheckBox* best_fit_;
  GapCanvas* gap_;
  StepsCanvas* steps_;
  SizeCanvas* size_;
  GraphCanvas* graph_;
  DetailsPanel* details_;
  FilesPanel* files_;
  QProgressBar* progress_;
  QLabel* status_;
  QMenu* recent_menu_;
};

/// The mouse and keyboard cheat sheet (Help menu and README), as HTML.
QString cheat_sheet_html();

}  // namespace etkit::gui
