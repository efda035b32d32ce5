#include "main_window.h"

#include <algorithm>

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QEventLoop>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include "details_panel.h"
#include "etkit/core/file_data.h"
#include "etkit/core/file_kind.h"
#include "etkit/gui/event_details.h"
#include "etkit/inspector/tracing_overhead.h"
#include "events_view.h"
#include "files_panel.h"
#include "gap_canvas.h"
#include "memory_canvas.h"
#include "graph_canvas.h"
#include "size_canvas.h"
#include "steps_canvas.h"
#include "timeline_canvas.h"

namespace etkit::gui {
namespace {

constexpr int kMaxRecent = 10;

QStringList paths_of(const OpenRequest& request) {
  QStringList paths;
  for (const std::string& file : request.files) paths << QString::fromStdString(file);
  for (const std::string* named : {&request.program, &request.etrecord, &request.debug_buffer}) {
    if (!named->empty()) paths << QString::fromStdString(*named);
  }
  return paths;
}

}  // namespace

QString cheat_sheet_html() {
  return "<table cellpadding='3'>"
         "<tr><th align='left'>Timeline</th><th></th></tr>"
         "<tr><td>wheel, W / S</td><td>zoom in / out around the cursor</td></tr>"
         "<tr><td>drag, A / D</td><td>pan (drag also scrolls the tracks)</td></tr>"
         "<tr><td>Shift + wheel, ↑ / ↓, Page Up / Down</td><td>scroll the tracks</td></tr>"
         "<tr><td>F</td><td>fit the whole trace</td></tr>"
         "<tr><td>click an event</td><td>select it (table row and details follow)</td></tr>"
         "<tr><td>click \"N events\"</td><td>zoom into the folded events</td></tr>"
         "<tr><td>click a track header</td><td>collapse or expand the run</td></tr>"
         "<tr><td>Shift + drag</td><td>select a time range: count, total and self time per event name</td></tr>"
         "<tr><td>Esc</td><td>clear the range</td></tr>"
         "<tr><th align='left'>Everywhere</th><th></th></tr>"
         "<tr><td>Ctrl + O</td><td>open files (or drop them on the window)</td></tr>"
         "<tr><td>Ctrl + B</td><td>compare with a baseline trace</td></tr>"
         "<tr><td>Ctrl + F</td><td>search events in the timeline</td></tr>"
         "<tr><td>Ctrl + 1 … 4</td><td>timeline, events, memory, numeric gap</td></tr>"
         "<tr><td>click a table row</td><td>select and frame the event in the timeline</td></tr>"
         "<tr><td>click a tensor / a gap point</td><td>select its instruction in the timeline and table</td></tr>"
         "</table>";
}

MainWindow::MainWindow() {
  setWindowTitle("etinspect-gui");
  setAcceptDrops(true);
  tabs_ = new QTabWidget(this);
  tabs_->addTab(make_timeline_tab(), "Timeline");
  events_ = new EventsView(this);
  tabs_->addTab(events_, "Events");
  tabs_->addTab(make_memory_tab(), "Memory");
  gap_ = new GapCanvas(this);
  tabs_->addTab(gap_, "Numeric gap");
  steps_ = new StepsCanvas(this);
  tabs_->addTab(steps_, "Tokens");
  size_ = new SizeCanvas(this);
  tabs_->addTab(size_, "Size");
  graph_ = new GraphCanvas(this);
  tabs_->addTab(graph_, "Graph");
  setCentralWidget(tabs_);

  details_ = new DetailsPanel(this);
  auto* details_dock = new QDockWidget("Details", this);
  details_dock->setObjectName("details");
  details_dock->setWidget(details_);
  addDockWidget(Qt::RightDockWidgetArea, details_dock);
  files_ = new FilesPanel(this);
  auto* files_dock = new QDockWidget("Files and problems", this);
  files_dock->setObjectName("files");
  files_dock->setWidget(files_);
  addDockWidget(Qt::BottomDockWidgetArea, files_dock);
  resizeDocks({details_dock}, {380}, Qt::Horizontal);
  resizeDocks({files_dock}, {110}, Qt::Vertical);

  status_ = new QLabel("Open a trace, a program, an ETRecord and a debug buffer (Ctrl+O or drop them here)", this);
  progress_ = new QProgressBar(this);
  progress_->setRange(0, 1000);
  progress_->setMaximumWidth(240);
  progress_->hide();
  statusBar()->addWidget(status_, 1);
  statusBar()->addPermanentWidget(progress_);

  watcher_ = new QFutureWatcher<Workspace*>(this);
  connect(watcher_, &QFutureWatcher<Workspace*>::finished, this, [this] {
    show_workspace(std::unique_ptr<Workspace>(watcher_->result()));
    if (queued_) {
      auto [request, merge] = *queued_;
      queued_.reset();
      open(request, merge);
    }
  });
  connect_views();
  make_menus();
}

// The selection kept in step across the views, and the graph's layout.
void MainWindow::connect_views() {
  // The graph view's layout runs on the thread pool over copies of the
  // graphs; a result for a workspace no longer shown is dropped.
  layout_watcher_ = new QFutureWatcher<OpGraphs>(this);
  connect(layout_watcher_, &QFutureWatcher<OpGraphs>::finished, this, [this] {
    if (workspace_ != nullptr && layout_for_ == shown_count_) {
      workspace_->install_graphs(layout_watcher_->result());
      graph_->layout_ready();
    } else if (graph_->isVisible()) {
      lay_out_graph();  // the workspace shown meanwhile asked while this one ran
    }
  });
  connect(graph_, &GraphCanvas::layout_needed, this, &MainWindow::lay_out_graph);
  connect(timeline_, &TimelineCanvas::event_selected, this, &MainWindow::on_timeline_selected);
  connect(events_, &EventsView::event_selected, this, [this](size_t block, size_t event) {
    if (workspace_ == nullptr) return;
    if (const auto id = workspace_->timeline_event_of(block, event)) timeline_->select(*id, true);
    show_event_details(block, event);
  });
  connect(memory_, &MemoryCanvas::step_selected, this, [this](size_t step) {
    const MethodSummary* method = workspace_ ? workspace_->method() : nullptr;
    if (method != nullptr && step < method->instructions.size()) select_instruction(method->instructions[step].index);
  });
  connect(gap_, &GapCanvas::instruction_selected, this, [this](int32_t id) { select_instruction(id); });
  connect(graph_, &GraphCanvas::node_selected, this,
          [this](int32_t id, const std::vector<int64_t>& handles) { select_instruction(id, handles); });
  connect(size_, &SizeCanvas::instruction_selected, this, [this](int32_t id) {
    select_instruction(id);
    graph_->select_instruction(id);
    show_view(View::kGraph);
  });
  connect(steps_, &StepsCanvas::step_selected, this, [this](double start, double end) {
    show_view(View::kTimeline);
    timeline_->show_span(start, end);
    // The step's run selected everywhere, as a click on it in the timeline
    // would: the table row and the details follow.
    if (const auto selected = timeline_->selection()) on_timeline_selected(selected->first, selected->second);
  });
}

// Views borrow the workspace: every view that holds a pointer into it lets
// go here, the one list of them, before the workspace goes.
void MainWindow::detach_views() {
  timeline_->set_workspace(nullptr, nullptr);
  memory_->set_workspace(nullptr);
  gap_->set_workspace(nullptr);
  steps_->set_workspace(nullptr);
  size_->set_workspace(nullptr);
  graph_->set_workspace(nullptr);
  events_->set_table(nullptr);
}

MainWindow::~MainWindow() {
  if (watcher_->isRunning()) watcher_->waitForFinished();
  if (layout_watcher_->isRunning()) layout_watcher_->waitForFinished();
  detach_views();
}

QWidget* MainWindow::make_timeline_tab() {
  auto* tab = new QWidget(this);
  search_ = new QLineEdit(tab);
  search_->setPlaceholderText("Search events (name, op type, module)");
  search_->setClearButtonEnabled(true);
  search_count_ = new QLabel(tab);
  colour_by_ = new QComboBox(tab);
  for (const char* name : kColourByNames) colour_by_->addItem(QString("colour by %1").arg(name));
  auto* fit = new QPushButton("Fit all", tab);
  show_baseline_ = new QCheckBox("baseline tracks", tab);
  show_baseline_->setChecked(true);
  show_baseline_->setEnabled(false);
  auto* bar = new QHBoxLayout();
  bar->addWidget(search_, 1);
  bar->addWidget(search_count_);
  bar->addWidget(colour_by_);
  bar->addWidget(show_baseline_);
  bar->addWidget(fit);
  timeline_ = new TimelineCanvas(tab);
  comparison_ = new QLabel(tab);
  comparison_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  comparison_->setStyleSheet("font-weight: bold; padding: 2px 0;");
  comparison_->hide();
  auto* layout = new QVBoxLayout(tab);
  layout->setContentsMargins(4, 4, 4, 0);
  layout->addLayout(bar);
  layout->addWidget(comparison_);
  layout->addWidget(timeline_, 1);
  connect(fit, &QPushButton::clicked, timeline_, &TimelineCanvas::fit_all);
  connect(search_, &QLineEdit::textChanged, this, [this](const QString& text) {
    if (!style_) return;
    style_->search(text.toStdString());
    search_count_->setText(text.isEmpty() ? QString() : QString("%1 matches").arg(style_->match_count()));
    timeline_->update();
  });
  // Enter: the next match, selected and framed ("3 / 24").
  connect(search_, &QLineEdit::returnPressed, this, [this] {
    if (!style_) return;
    const auto next = style_->next_match(timeline_->selection());
    if (!next) return;
    timeline_->select(*next, true);
    search_count_->setText(QString("%1 / %2").arg(style_->match_number(*next)).arg(style_->match_count()));
  });
  connect(colour_by_, &QComboBox::currentIndexChanged, this, [this](int index) {
    if (!style_) return;
    style_->colour_by(ColourBy(index));
    timeline_->update();
  });
  connect(show_baseline_, &QCheckBox::toggled, timeline_, &TimelineCanvas::set_show_baseline);
  return tab;
}

QWidget* MainWindow::make_memory_tab() {
  auto* tab = new QWidget(this);
  memory_method_ = new QComboBox(tab);
  best_fit_ = new QCheckBox("show the best-fit re-plan beside", tab);
  auto* bar = new QHBoxLayout();
  bar->addWidget(new QLabel("method", tab));
  bar->addWidget(memory_method_);
  bar->addWidget(best_fit_);
  bar->addStretch(1);
  memory_ = new MemoryCanvas(tab);
  auto* layout = new QVBoxLayout(tab);
  layout->setContentsMargins(4, 4, 4, 0);
  layout->addLayout(bar);
  layout->addWidget(memory_, 1);
  connect(memory_method_, &QComboBox::currentIndexChanged, this, [this](int index) {
    if (index >= 0) memory_->set_method(size_t(index));
  });
  connect(best_fit_, &QCheckBox::toggled, memory_, &MemoryCanvas::set_show_best_fit);
  return tab;
}

void MainWindow::make_menus() {
  QMenu* file = menuBar()->addMenu("&File");
  file->addAction("&Open…", QKeySequence::Open, this, [this] { open_dialog(false); });
  file->addAction("Compare with &Baseline…", QKeySequence(Qt::CTRL | Qt::Key_B), this, [this] { open_dialog(true); });
  file->addAction("Numeric Gap &Reference…", this, [this] { reference_dialog(false); });
  file->addAction("Numeric Gap Reference &Folder…", this, [this] { reference_dialog(true); });
  recent_menu_ = file->addMenu("Open &Recent");
  rebuild_recent_menu();
  file->addAction("&Close Workspace", QKeySequence::Close, this, [this] { show_workspace(nullptr); });
  file->addSeparator();
  file->addAction("&Quit", QKeySequence::Quit, qApp, &QApplication::quit);
  QMenu* view = menuBar()->addMenu("&View");
  const char* names[] = {"&Timeline", "&Events", "&Memory", "Numeric &gap", "T&okens", "&Size", "G&raph"};
  for (int i = 0; i < 7; ++i) {
    view->addAction(names[i], QKeySequence(Qt::CTRL | (Qt::Key_1 + i)), this, [this, i] { show_view(View(i)); });
  }
  view->addAction("&Fit All", timeline_, &TimelineCanvas::fit_all);
  view->addAction("&Search Events", QKeySequence::Find, this, [this] {
    show_view(View::kTimeline);
    search_->setFocus();
    search_->selectAll();
  });
  QMenu* help = menuBar()->addMenu("&Help");
  help->addAction("&Mouse and Keyboard", this,
                  [this] { QMessageBox::information(this, "Mouse and keyboard", cheat_sheet_html()); });
  help->addAction("&About", this, [this] {
    QMessageBox::about(this, "etinspect-gui",
                       "etinspect-gui: where the time goes in an ExecuTorch program, event by event, linked to the "
                       "model. Part of etkit.");
  });
}

void MainWindow::rebuild_recent_menu() {
  recent_menu_->clear();
  const QStringList recent = QSettings().value("recent").toStringList();
  for (const QString& path : recent) {
    recent_menu_->addAction(path, this, [this, path] {
      OpenRequest request;
      request.files = {path.toStdString()};
      open(request, true);
    });
  }
  recent_menu_->setEnabled(!recent.isEmpty());
}

void MainWindow::remember(const OpenRequest& request) {
  QSettings settings;
  QStringList recent = settings.value("recent").toStringList();
  for (const QString& path : paths_of(request)) {
    recent.removeAll(path);
    recent.prepend(path);
  }
  while (recent.size() > kMaxRecent) recent.removeLast();
  settings.setValue("recent", recent);
  rebuild_recent_menu();
}

void MainWindow::open_dialog(bool baseline) {
  if (baseline) {
    const QString path = QFileDialog::getOpenFileName(this, "Baseline trace to compare with");
    if (path.isEmpty()) return;
    OpenRequest request;
    request.baseline = path.toStdString();
    open(request, true);
    return;
  }
  const QStringList paths =
      QFileDialog::getOpenFileNames(this, "Open trace, program, ETRecord, debug buffer (kinds found by their bytes)");
  if (paths.isEmpty()) return;
  OpenRequest request;
  for (const QString& path : paths) request.files.push_back(path.toStdString());
  open(request, true);
}

// A reference trace with its debug buffer, program and ETRecord (placed by
// their bytes), or a folder of .npy: the gap view then shows what
// `etinspect gap` reports for the same files.
void MainWindow::reference_dialog(bool folder) {
  std::vector<std::string> paths;
  if (folder) {
    const QString dir = QFileDialog::getExistingDirectory(this, "Folder of reference .npy files");
    if (dir.isEmpty()) return;
    paths.push_back(dir.toStdString());
  } else {
    const QStringList chosen = QFileDialog::getOpenFileNames(
        this, "Reference trace, its debug buffer, and its program and ETRecord (to match another export by node)");
    for (const QString& path : chosen) paths.push_back(path.toStdString());
  }
  if (paths.empty()) return;
  open(reference_request(paths), true);
  show_view(View::kGap);
}

void MainWindow::open(const OpenRequest& request, bool merge) {
  if (watcher_->isRunning()) {
    queued_ = std::make_pair(request, merge);
    return;
  }
  OpenRequest full = request;
  if (merge && workspace_ != nullptr) {
    full = workspace_->request();
    // A newly opened trace replaces the old one (and its debug buffer).
    bool new_trace = false;
    for (const std::string& path : request.files) {
      auto bytes = FileData::load(path);
      new_trace |= bytes.ok() && detect_file_kind((*bytes)->bytes()) == FileKind::kETDump;
    }
    if (new_trace) {
      std::vector<std::string> kept;
      for (const std::string& path : full.files) {
        auto bytes = FileData::load(path);
        const FileKind kind = bytes.ok() ? detect_file_kind((*bytes)->bytes()) : FileKind::kUnknown;
        if (kind != FileKind::kETDump && kind != FileKind::kUnknown) kept.push_back(path);
      }
      full.files = kept;
      full.debug_buffer.clear();
    }
    full.merge(request);
  }
  remember(request);
  progress_->setValue(0);
  progress_->show();
  status_->setText("Loading…");
  QPointer<MainWindow> self(this);
  watcher_->setFuture(QtConcurrent::run([full, self]() -> Workspace* {
    return Workspace::load(full, [self](double fraction, const std::string& step) {
             QMetaObject::invokeMethod(
                 qApp,
                 [self, fraction, step] {
                   if (!self) return;
                   self->progress_->setValue(int(fraction * 1000));
                   self->status_->setText(QString("Loading: %1…").arg(QString::fromStdString(step)));
                 },
                 Qt::QueuedConnection);
           })
        .release();
  }));
}

void MainWindow::open_blocking(const OpenRequest& request, bool merge) {
  // Wait for this open's workspace to be shown: the worker may already be
  // done when open() returns, but its result arrives through the event loop.
  // While a load runs, this one is queued behind it: two workspaces are shown.
  const uint64_t target = shown_count_ + (watcher_->isRunning() ? 2 : 1);
  QEventLoop loop;
  connect(this, &MainWindow::workspace_shown, &loop, [&] {
    if (shown_count_ >= target) loop.quit();
  });
  open(request, merge);
  if (shown_count_ < target) loop.exec();
}

bool MainWindow::loading() const { return watcher_->isRunning() || queued_.has_value(); }

void MainWindow::lay_out_graph() {
  if (workspace_ == nullptr || workspace_->graph() == nullptr || workspace_->graph_laid_out() ||
      layout_watcher_->isRunning()) {
    return;
  }
  layout_for_ = shown_count_;
  layout_watcher_->setFuture(QtConcurrent::run([graphs = workspace_->graphs_to_lay_out()]() mutable {
    layout_op_graphs(graphs, nullptr);
    return graphs;
  }));
}

void MainWindow::lay_out_graph_now() {
  if (workspace_ == nullptr || workspace_->graph_laid_out()) return;
  if (layout_watcher_->isRunning()) layout_watcher_->waitForFinished();
  QApplication::processEvents();  // installs that result if it was this workspace's
  workspace_->lay_out_graphs_now();
  graph_->layout_ready();
}

void MainWindow::show_workspace(std::unique_ptr<Workspace> workspace) {
  detach_views();  // from the old workspace, before it is destroyed
  style_.reset();
  workspace_ = std::move(workspace);
  progress_->hide();
  details_->clear();
  files_->show_workspace(workspace_.get());
  memory_method_->blockSignals(true);
  memory_method_->clear();
  if (workspace_ != nullptr) {
    style_ = std::make_unique<TimelineStyle>(*workspace_, workspace_->timeline());
    style_->colour_by(ColourBy(colour_by_->currentIndex()));
    style_->search(search_->text().toStdString());
    timeline_->set_workspace(workspace_.get(), style_.get());
    events_->set_table(std::make_unique<EventsTable>(*workspace_));
    for (const auto& method : workspace_->memory()) memory_method_->addItem(QString::fromStdString(method.name));
    memory_->set_workspace(workspace_.get());
    for (size_t m = 0; m < workspace_->memory().size(); ++m) {
      if (workspace_->memory()[m].name == workspace_->request().method) memory_method_->setCurrentIndex(int(m));
    }
    gap_->set_workspace(workspace_.get());
    steps_->set_workspace(workspace_.get());
    graph_->set_workspace(workspace_.get());
    size_->set_workspace(workspace_.get());
    show_baseline_->setEnabled(workspace_->baseline_timeline() != nullptr);
    const std::string verdict = workspace_->comparison_verdict();
    comparison_->setText(QString::fromStdString(verdict));
    comparison_->setVisible(!verdict.empty());
    const size_t problems = workspace_->errors().size();
    // How much the per-node profile slows the run, when the trace measured it.
    QString overhead;
    if (workspace_->trace() != nullptr) {
      if (const auto measured = inspector::tracing_overhead(*workspace_->trace())) {
        overhead = QString(", traced/untraced %1 (median of %2 runs each)").arg(measured->ratio, 0, 'f', 2).arg(measured->runs);
      }
    }
    status_->setText(QString("%1 events in %2 run blocks%3%4")
                         .arg(workspace_->timeline().event_count())
                         .arg(workspace_->timeline().tracks().size())
                         .arg(overhead)
                         .arg(problems ? QString(", %1 file(s) could not be used: see Files and problems").arg(problems)
                                       : QString()));
    setWindowTitle(workspace_->trace() != nullptr
                       ? QString("etinspect-gui: %1").arg(QString::fromStdString(workspace_->trace()->name()))
                       : QString("etinspect-gui"));
  } else {
    status_->setText("No workspace open");
    comparison_->hide();
  }
  memory_method_->blockSignals(false);
  ++shown_count_;
  emit workspace_shown();
}

void MainWindow::show_view(View view) { tabs_->setCurrentIndex(int(view)); }

void MainWindow::show_event_details(size_t block, size_t event) {
  if (workspace_ == nullptr || block >= workspace_->blocks().size()) return;
  const inspector::EventBlock& b = workspace_->blocks()[block];
  if (event >= b.events.size()) return;
  // A delegated op selects its own node of the delegate call, not all of them.
  const inspector::Event& selected = b.events[event];
  if (selected.instruction_id >= 0) {
    graph_->select_node(selected.instruction_id,
                        selected.is_delegated_op ? selected.debug_handles : std::vector<int64_t>{});
  }
  const inspector::TimeUnit unit = workspace_->request().table_unit;
  details_->show_details(
      event_details(b, b.events[event], workspace_->debug_outputs(), workspace_->diff_row_of(block, event)),
      inspector::to_string(unit), inspector::nanoseconds_per(unit));
}

void MainWindow::on_timeline_selected(size_t track, size_t index) {
  if (workspace_ == nullptr || track >= workspace_->timeline().tracks().size()) return;
  const TimelineTrack& t = workspace_->timeline().tracks()[track];
  const TimelineEvent& e = t.events[index];
  if (t.group < 0 || e.row < 0) return;
  events_->select_event(size_t(t.group), size_t(e.row));
  show_event_details(size_t(t.group), size_t(e.row));
}

void MainWindow::select_event(size_t block, size_t event, bool frame) {
  if (workspace_ == nullptr) return;
  events_->select_event(block, event);
  if (const auto id = workspace_->timeline_event_of(block, event)) timeline_->select(*id, frame);
  show_event_details(block, event);
}

bool MainWindow::select_event_named(const std::string& name) {
  if (workspace_ == nullptr) return false;
  const auto& blocks = workspace_->blocks();
  for (size_t b = 0; b < blocks.size(); ++b) {
    for (size_t e = 0; e < blocks[b].events.size(); ++e) {
      if (blocks[b].events[e].name == name) {
        select_event(b, e, false);
        return true;
      }
    }
  }
  return false;
}

void MainWindow::select_instruction(int32_t id, const std::vector<int64_t>& handles) {
  if (workspace_ == nullptr) return;
  const auto carries = [](const inspector::Event& event, const std::vector<int64_t>& wanted) {
    if (wanted.empty()) return true;
    for (int64_t h : event.debug_handles) {
      if (std::find(wanted.begin(), wanted.end(), h) != wanted.end()) return true;
    }
    return false;
  };
  // The event carrying one of the handles, else the instruction's first.
  const auto& blocks = workspace_->blocks();
  for (const std::vector<int64_t>& wanted : {handles, std::vector<int64_t>{}}) {
    for (size_t b = 0; b < blocks.size(); ++b) {
      if (blocks[b].name != "Execute") continue;
      for (size_t e = 0; e < blocks[b].events.size(); ++e) {
        const inspector::Event& event = blocks[b].events[e];
        if (event.instruction_id == id && event.perf_data && event.name != "OPERATOR_CALL" && carries(event, wanted)) {
          select_event(b, e);
          status_->setText(QString("instruction %1: %2").arg(id).arg(QString::fromStdString(event.name)));
          return;
        }
      }
    }
  }
  status_->setText(QString("instruction %1 has no profiled event in this trace").arg(id));
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (event->mimeData()->hasUrls()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  OpenRequest request;
  for (const QUrl& url : event->mimeData()->urls()) {
    if (url.isLocalFile()) request.files.push_back(url.toLocalFile().toStdString());
  }
  if (!request.files.empty()) open(request, true);
  event->acceptProposedAction();
}

}  // namespace etkit::gui
