#include "timeline_canvas.h"

#include <imgui.h>

#include <QKeyEvent>
#include <QResizeEvent>
#include <QMouseEvent>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "etkit/gui/workspace.h"
#include "etkit/inspector/event_text.h"
#include "palette.h"
#include "display_format.h"

namespace etkit::gui {
namespace {

constexpr float kRulerHeight = 26;
// Under the ruler, its own strip (it never covers an event): the typical
// run's time per colour key as one stacked bar, which is also the legend.
constexpr float kSummaryHeight = 24;
constexpr float kTracksTop = kRulerHeight + kSummaryHeight;
constexpr float kHeaderHeight = 20;
constexpr float kRowHeight = 18;
constexpr float kTrackGap = 4;
constexpr double kMinPixels = 3;  // narrower events fold (Tracy's rule)
constexpr LaneMetrics kLaneMetrics{kHeaderHeight, kRowHeight, kTrackGap};
constexpr ImU32 kFolded = IM_COL32(170, 170, 170, 255);
constexpr ImU32 kHatch = IM_COL32(120, 120, 120, 255);

// Text clipped to [x0, x1] on one line, when at least a few characters
// fit; true when drawn.
bool clipped_text(ImDrawList* list, float x0, float x1, float y, ImU32 colour, const char* text) {
  if (x1 - x0 < 24) return false;
  list->PushClipRect(ImVec2(x0, y), ImVec2(x1, y + kRowHeight), true);
  list->AddText(ImVec2(x0 + 3, y + 2), colour, text);
  list->PopClipRect();
  return true;
}

}  // namespace

TimelineCanvas::TimelineCanvas(QWidget* parent) : ImGuiCanvas(parent) { setMinimumSize(320, 200); }

void TimelineCanvas::set_workspace(const Workspace* workspace, const TimelineStyle* style) {
  workspace_ = workspace;
  style_ = style;
  selection_.reset();
  range_.reset();
  aggregate_.clear();
  summary_.reset();
  lanes_.set_tracks(visible_tracks(), kLaneMetrics);
  typical_ = workspace_ != nullptr ? typical_run(workspace_->timeline().tracks()) : std::nullopt;
  // Open on the whole of one typical run; without one, everything.
  if (typical_) frame_typical_run();
  else fit_all();
}

void TimelineCanvas::set_show_baseline(bool show) {
  show_baseline_ = show;
  const float scroll = lanes_.scroll();
  lanes_.set_tracks(visible_tracks(), kLaneMetrics);
  lanes_.scroll_to(scroll, view_height());
  update();
}

void TimelineCanvas::frame_typical_run() {
  if (!typical_) return;
  const TimelineTrack& run = workspace_->timeline().tracks()[*typical_];
  const double width = std::max(1, this->width());
  viewport_ = frame_run(run, width);
  fitted_ = false;
  opening_view_ = true;
  // Lanes with nothing beside the framed run (load, warm-ups: the margin
  // before it may show a warm-up's last instants) as titles only; its lane
  // in view, near the top.
  lanes_.collapse_outside(run.start, std::min(run.end, viewport_.t0 + width * viewport_.ns_per_pixel));
  lanes_.scroll_to(0, view_height());
  lanes_.scroll_to(lanes_.track_top(*typical_) - 2 * kHeaderHeight, view_height());
  update();
}

std::vector<LaneTrack> TimelineCanvas::visible_tracks() const {
  std::vector<LaneTrack> refs;
  if (workspace_ == nullptr) return refs;
  const auto& primary = workspace_->timeline().tracks();
  for (size_t i = 0; i < primary.size(); ++i) refs.push_back({&primary[i], false, i});
  if (show_baseline_ && workspace_->baseline_timeline() != nullptr) {
    const auto& baseline = workspace_->baseline_timeline()->tracks();
    for (size_t i = 0; i < baseline.size(); ++i) refs.push_back({&baseline[i], true, i});
  }
  return refs;
}

void TimelineCanvas::fit_all() {
  double end = 0;
  if (workspace_ != nullptr) {
    end = workspace_->timeline().end();
    if (show_baseline_ && workspace_->baseline_timeline() != nullptr) {
      end = std::max(end, workspace_->baseline_timeline()->end());
    }
  }
  viewport_.fit(0, end > 0 ? end * 1.02 : 1, std::max(1, width()));
  fitted_ = true;
  opening_view_ = false;
  update();
}

float TimelineCanvas::view_height() const { return std::max(0.0f, float(height()) - kTracksTop); }

std::optional<LaneHit> TimelineCanvas::hit(float x, float y) const {
  return lanes_.hit(viewport_.time_at(x), y - kTracksTop, viewport_.ns_per_pixel, kMinPixels);
}

std::optional<QRectF> TimelineCanvas::event_rect(EventId event) const {
  if (event.first >= lanes_.track_count() || lanes_.collapsed(lanes_.lane_of(event.first))) return std::nullopt;
  const TimelineTrack& track = *lanes_.track(event.first).track;
  if (event.second >= track.events.size()) return std::nullopt;
  const TimelineEvent& e = track.events[event.second];
  const float top = kTracksTop + lanes_.track_top(event.first) + kHeaderHeight + float(e.depth) * kRowHeight;
  if (top + kRowHeight < kTracksTop || top > float(height())) return std::nullopt;
  const double x0 = viewport_.x_of(e.start), x1 = viewport_.x_of(e.end);
  return QRectF(x0, top, std::max(1.0, x1 - x0), kRowHeight);
}

void TimelineCanvas::select(std::optional<EventId> event, bool frame) {
  selection_ = event;
  if (event && frame && event->first < lanes_.track_count()) {
    lanes_.expand(lanes_.lane_of(event->first));
    opening_view_ = false;
    const TimelineEvent& e = lanes_.track(event->first).track->events.at(event->second);
    const double pad = std::max((e.end - e.start) * 0.25, 1.0);
    viewport_.fit(e.start - pad, e.end + pad, std::max(1, width()));
    fitted_ = false;
    // Scroll so the event's row sits in the upper third of the canvas.
    const float row = lanes_.track_top(event->first) + lanes_.scroll() + kHeaderHeight + float(e.depth) * kRowHeight;
    lanes_.scroll_to(row - float(height()) / 3, view_height());
  }
  update();
}

void TimelineCanvas::select_range(double t0, double t1) {
  if (t1 < t0) std::swap(t0, t1);
  range_ = std::make_pair(t0, t1);
  aggregate_ = workspace_ != nullptr ? aggregate_range(workspace_->timeline().tracks(), t0, t1)
                                     : std::vector<RangeAggregate>();
  update();
}

void TimelineCanvas::show_span(double t0, double t1) {
  for (size_t t = 0; t < lanes_.track_count(); ++t) {
    if (lanes_.track(t).baseline) continue;
    const std::vector<TimelineEvent>& events = lanes_.track(t).track->events;
    for (size_t i = 0; i < events.size(); ++i) {
      if (events[i].start <= t0 && events[i].end >= t1) {
        select(EventId{t, i}, true);
        break;
      }
    }
    if (selection_ && selection_->first == t) break;
  }
  select_range(t0, t1);
}

// --- interaction (Qt side) ---

void TimelineCanvas::mousePressEvent(QMouseEvent* event) {
  ImGuiCanvas::mousePressEvent(event);
  if (event->button() != Qt::LeftButton) return;
  press_ = event->position();
  dragged_ = false;
  range_drag_ = event->modifiers() & Qt::ShiftModifier;
  range_anchor_ = viewport_.time_at(event->position().x());
}

void TimelineCanvas::mouseMoveEvent(QMouseEvent* event) {
  ImGuiCanvas::mouseMoveEvent(event);
  if (!press_ || !(event->buttons() & Qt::LeftButton)) return;
  const QPointF delta = event->position() - *press_;
  if (!dragged_ && std::abs(delta.x()) + std::abs(delta.y()) < 4) return;
  dragged_ = true;
  if (range_drag_) {
    select_range(range_anchor_, viewport_.time_at(event->position().x()));
    return;
  }
  viewport_.pan(-delta.x());
  fitted_ = false;
  opening_view_ = false;
  lanes_.scroll_by(-float(delta.y()), view_height());
  press_ = event->position();
  update();
}

void TimelineCanvas::mouseReleaseEvent(QMouseEvent* event) {
  ImGuiCanvas::mouseReleaseEvent(event);
  if (event->button() != Qt::LeftButton || !press_) return;
  press_.reset();
  if (dragged_) return;
  const auto h = hit(float(event->position().x()), float(event->position().y()));
  if (!h) return;
  if (h->header) {
    lanes_.toggle(lanes_.lane_of(h->track));
    lanes_.scroll_by(0, view_height());
    update();
    return;
  }
  if (h->folded) {  // a click on "N events" zooms into them
    viewport_.fit(h->folded->start, h->folded->end, std::max(1, width()));
    fitted_ = false;
    update();
    return;
  }
  if (lanes_.track(h->track).baseline) return;  // baseline events have no table rows
  if (h->event) {
    select(EventId{h->track, *h->event}, false);
    emit event_selected(h->track, *h->event);
  } else {
    select(std::nullopt, false);
  }
}

void TimelineCanvas::wheelEvent(QWheelEvent* event) {
  ImGuiCanvas::wheelEvent(event);
  const double steps = event->angleDelta().y() / 120.0;
  if (event->modifiers() & Qt::ShiftModifier) {
    lanes_.scroll_by(-float(steps * 3 * kRowHeight), view_height());
  } else {
    viewport_.zoom_at(event->position().x(), std::pow(1.25, steps));
    fitted_ = false;
    opening_view_ = false;
  }
  update();
}

void TimelineCanvas::keyPressEvent(QKeyEvent* event) {
  ImGuiCanvas::keyPressEvent(event);
  const QPointF cursor = mapFromGlobal(QCursor::pos());
  const double x = rect().contains(cursor.toPoint()) ? cursor.x() : width() / 2.0;
  if (event->key() == Qt::Key_W || event->key() == Qt::Key_S || event->key() == Qt::Key_A ||
      event->key() == Qt::Key_D) {
    fitted_ = false;
    opening_view_ = false;
  }
  switch (event->key()) {
    case Qt::Key_W: viewport_.zoom_at(x, 1.25); break;
    case Qt::Key_S: viewport_.zoom_at(x, 0.8); break;
    case Qt::Key_A: viewport_.pan(-0.1 * width()); break;
    case Qt::Key_D: viewport_.pan(0.1 * width()); break;
    case Qt::Key_F: fit_all(); break;
    case Qt::Key_Up: lanes_.scroll_by(-3 * kRowHeight, view_height()); break;
    case Qt::Key_Down: lanes_.scroll_by(3 * kRowHeight, view_height()); break;
    case Qt::Key_PageUp: lanes_.scroll_by(-float(height()) * 0.8f, view_height()); break;
    case Qt::Key_PageDown: lanes_.scroll_by(float(height()) * 0.8f, view_height()); break;
    case Qt::Key_Escape:
      range_.reset();
      aggregate_.clear();
      break;
    default: return;
  }
  update();
}

void TimelineCanvas::resizeEvent(QResizeEvent* event) {
  // Keep the visible time span when the canvas changes width.
  const int old_width = event->oldSize().width();
  ImGuiCanvas::resizeEvent(event);
  if (opening_view_) frame_typical_run();
  else if (fitted_) fit_all();
  else if (old_width > 0 && width() > 0) viewport_.ns_per_pixel *= double(old_width) / double(width());
  lanes_.scroll_by(0, view_height());
}

// --- drawing (ImGui side) ---

void TimelineCanvas::draw() {
  ImDrawList* list = ImGui::GetWindowDrawList();
  const ImVec2 size = ImGui::GetIO().DisplaySize;
  if (workspace_ == nullptr || lanes_.track_count() == 0) {
    // Why there is nothing to show: no workspace, a trace that could not be
    // read (its error, e.g. a file cut short), or none given.
    std::string hint = workspace_ == nullptr ? "Open a trace: File > Open, or drop files here"
                                             : "No trace in this workspace: open an .etdp";
    if (workspace_ != nullptr && !workspace_->trace_problem().empty()) {
      hint = "The trace could not be read: " + workspace_->trace_problem();
    }
    const ImVec2 text = ImGui::CalcTextSize(hint.c_str(), nullptr, false, size.x - 40);
    list->AddText(ImGui::GetFont(), ImGui::GetFontSize(), ImVec2(std::max(20.0f, (size.x - text.x) / 2), (size.y - text.y) / 2),
                  IM_COL32(110, 110, 110, 255), hint.c_str(), nullptr, size.x - 40);
    return;
  }
  labels_drawn_ = 0;
  const double t0 = viewport_.t0, t1 = viewport_.time_at(size.x);
  for (size_t l = 0; l < lanes_.lane_count(); ++l) {
    const float top = kTracksTop + lanes_.lane_top(l), h = lanes_.lane_height(l);
    if (top > size.y) break;
    if (top + h < kTracksTop) continue;
    draw_lane_header(l, top);
    if (lanes_.collapsed(l)) continue;
    // Runs narrower than a few pixels (thousands of runs fitted to the
    // window) come folded: one hatched span per cluster.
    for (const LaneSpan& span : lanes_.spans(l, t0, t1, viewport_.ns_per_pixel, kMinPixels)) {
      if (span.runs > 0) draw_folded_runs(span.start, span.end, span.runs, top);
      else draw_track(lanes_.track(span.track), span.track, top);
    }
  }
  draw_range();
  draw_ruler();
  draw_summary();
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  if (!press_ && mouse.x >= 0 && mouse.y >= 0 && ImGui::IsWindowHovered()) {
    if (const auto h = hit(mouse.x, mouse.y)) draw_tooltip(*h);
  }
}

void TimelineCanvas::draw_ruler() {
  ImDrawList* list = ImGui::GetWindowDrawList();
  const float w = ImGui::GetIO().DisplaySize.x;
  list->AddRectFilled(ImVec2(0, 0), ImVec2(w, kRulerHeight), IM_COL32(245, 245, 245, 255));
  list->AddLine(ImVec2(0, kRulerHeight - 1), ImVec2(w, kRulerHeight - 1), IM_COL32(190, 190, 190, 255));
  const double step = tick_step(viewport_.ns_per_pixel);
  const double t1 = viewport_.time_at(w);
  // Ticks count from the run in view (its start is 0), not from the trace's start.
  const std::vector<TimelineTrack>& tracks = workspace_->timeline().tracks();
  const RulerOrigin origin = ruler_origin(tracks, viewport_.t0, t1);
  // Which start the labels count from, on the right end; no tick label runs under it.
  const std::string from = origin.track ? "from the start of " + tracks[*origin.track].name : "from the trace's start";
  const ImVec2 size = ImGui::CalcTextSize(from.c_str());
  const float labels_end = w - size.x - 10;
  for (double k = std::floor((viewport_.t0 - origin.ns) / step); origin.ns + k * step <= t1; k += 1) {
    const double t = origin.ns + k * step;
    const float x = float(viewport_.x_of(t));
    list->AddLine(ImVec2(x, kRulerHeight - 8), ImVec2(x, kRulerHeight - 1), IM_COL32(120, 120, 120, 255));
    for (int minor = 1; minor < 5; ++minor) {
      const float mx = float(viewport_.x_of(t + step * minor / 5));
      list->AddLine(ImVec2(mx, kRulerHeight - 4), ImVec2(mx, kRulerHeight - 1), IM_COL32(170, 170, 170, 255));
    }
    const std::string label = tick_label(k * step, step);
    if (x + 3 + ImGui::CalcTextSize(label.c_str()).x < labels_end) list->AddText(ImVec2(x + 3, 4), kCanvasText, label.c_str());
  }
  list->AddRectFilled(ImVec2(labels_end, 2), ImVec2(w, kRulerHeight - 9), IM_COL32(245, 245, 245, 255));
  list->AddText(ImVec2(w - size.x - 6, 4), IM_COL32(110, 110, 110, 255), from.c_str());
}

void TimelineCanvas::draw_track(const LaneTrack& ref, size_t t, float top) {
  ImDrawList* list = ImGui::GetWindowDrawList();
  const float w = ImGui::GetIO().DisplaySize.x;
  const TimelineTrack& track = *ref.track;
  const double t0 = viewport_.t0, t1 = viewport_.time_at(w);
  const bool searching = style_ != nullptr && !ref.baseline && !style_->search_text().empty();
  for (const DrawItem& item : layout_track(track, t0, t1, viewport_.ns_per_pixel, kMinPixels)) {
    const float y0 = top + kHeaderHeight + float(item.depth) * kRowHeight;
    if (y0 + kRowHeight < kTracksTop) continue;
    const float x0 = std::max(-2.0f, float(viewport_.x_of(item.start)));
    const float x1 = std::min(w + 2, std::max(x0 + 1, float(viewport_.x_of(item.end))));
    const ImVec2 a(x0, y0 + 1), b(x1, y0 + kRowHeight - 1);
    if (item.folded) {
      // Tracy's folded zone: grey, hatched, with its count when it fits.
      list->AddRectFilled(a, b, kFolded);
      list->PushClipRect(a, b, true);
      for (float hx = x0 - kRowHeight; hx < x1; hx += 6) {
        list->AddLine(ImVec2(hx, b.y), ImVec2(hx + kRowHeight, a.y), kHatch);
      }
      list->PopClipRect();
      const std::string count = std::to_string(item.count) + " events";
      if (x1 - x0 > ImGui::CalcTextSize(count.c_str()).x + 8) clipped_text(list, x0, x1, y0, kCanvasText, count.c_str());
      continue;
    }
    const TimelineEvent& event = track.events[item.first_event];
    const bool match = !searching || style_->matches(ref.index, item.first_event);
    const uint32_t colour = style_ == nullptr ? palette_index(track.name_of(event), 16)
                            : ref.baseline    ? style_->baseline_colour(ref.index, item.first_event)
                                              : style_->colour(ref.index, item.first_event);
    list->AddRectFilled(a, b, palette_colour(colour, match ? 255 : 60));
    if (searching && match) list->AddRect(a, b, IM_COL32(230, 120, 0, 255), 0, 0, 2);
    if (!ref.baseline && selection_ && selection_->first == t && selection_->second == item.first_event) {
      list->AddRect(ImVec2(a.x - 1, a.y - 1), ImVec2(b.x + 1, b.y + 1), IM_COL32(0, 0, 0, 255), 0, 0, 2.5f);
    }
    const std::string label = workspace_->event_label(track, event);
    if (clipped_text(list, x0, x1, y0, match ? kCanvasText : IM_COL32(20, 20, 20, 110), label.c_str())) {
      ++labels_drawn_;
    }
  }
}

void TimelineCanvas::draw_folded_runs(double start, double end, size_t runs, float top) {
  ImDrawList* list = ImGui::GetWindowDrawList();
  const float w = ImGui::GetIO().DisplaySize.x;
  const float y0 = top + kHeaderHeight;
  const float x0 = std::max(-2.0f, float(viewport_.x_of(start)));
  const float x1 = std::min(w + 2, std::max(x0 + 1, float(viewport_.x_of(end))));
  const ImVec2 a(x0, y0 + 1), b(x1, y0 + kRowHeight - 1);
  list->AddRectFilled(a, b, kFolded);
  list->PushClipRect(a, b, true);
  for (float hx = x0 - kRowHeight; hx < x1; hx += 6) list->AddLine(ImVec2(hx, b.y), ImVec2(hx + kRowHeight, a.y), kHatch);
  list->PopClipRect();
  const std::string count = std::to_string(runs) + (runs == 1 ? " run" : " runs");
  if (x1 - x0 > ImGui::CalcTextSize(count.c_str()).x + 8) clipped_text(list, x0, x1, y0, kCanvasText, count.c_str());
}

void TimelineCanvas::draw_lane_header(size_t lane, float top) {
  ImDrawList* list = ImGui::GetWindowDrawList();
  const float w = ImGui::GetIO().DisplaySize.x;
  const std::vector<size_t>& runs = lanes_.lane(lane);
  const LaneTrack& first = lanes_.track(runs.front());
  const ImU32 header = first.baseline ? IM_COL32(255, 236, 210, 255) : IM_COL32(232, 236, 242, 255);
  list->AddRectFilled(ImVec2(0, top), ImVec2(w, top + kHeaderHeight), header);
  std::string title = std::string(lanes_.collapsed(lane) ? "+ " : "- ") + (first.baseline ? "baseline: " : "");
  if (runs.size() == 1) {
    const TimelineTrack& track = *first.track;
    title += track.name + "   " + std::to_string(track.events.size()) + " events, " +
             format_duration(track.end - track.start);
    if (track.bundled_input_index >= 0) title += ", bundled input " + std::to_string(track.bundled_input_index);
  } else {
    // "Execute ×10 (#3–#12)   3070 events, median run 9.6 ms": the runs side by side in time.
    std::vector<double> spans;
    size_t events = 0;
    for (size_t t : runs) {
      spans.push_back(lanes_.track(t).track->end - lanes_.track(t).track->start);
      events += lanes_.track(t).track->events.size();
    }
    std::nth_element(spans.begin(), spans.begin() + long((spans.size() - 1) / 2), spans.end());
    const std::string& a = first.track->name;
    const std::string& b = lanes_.track(runs.back()).track->name;
    title += run_base_name(a) + " x" + std::to_string(runs.size()) + " (" + a.substr(run_base_name(a).size() + 1) + "-" +
             b.substr(run_base_name(b).size() + 1) + ")   " + std::to_string(events) + " events, median run " +
             format_duration(spans[(spans.size() - 1) / 2]);
  }
  if (typical_ && std::find(runs.begin(), runs.end(), *typical_) != runs.end() && !first.baseline) {
    title += "   (opened at " + lanes_.track(*typical_).track->name + ", a run of median length)";
  }
  list->AddText(ImVec2(6, top + 3), kCanvasText, title.c_str());
}

void TimelineCanvas::draw_range() {
  if (!range_) return;
  ImDrawList* list = ImGui::GetWindowDrawList();
  const ImVec2 size = ImGui::GetIO().DisplaySize;
  const float x0 = float(viewport_.x_of(range_->first)), x1 = float(viewport_.x_of(range_->second));
  list->AddRectFilled(ImVec2(x0, kTracksTop), ImVec2(x1, size.y), IM_COL32(60, 120, 220, 40));
  list->AddLine(ImVec2(x0, kTracksTop), ImVec2(x0, size.y), IM_COL32(60, 120, 220, 200));
  list->AddLine(ImVec2(x1, kTracksTop), ImVec2(x1, size.y), IM_COL32(60, 120, 220, 200));
  // Perfetto's area selection: count, total and self time per event name.
  ImGui::SetNextWindowPos(ImVec2(size.x - 12, size.y - 12), ImGuiCond_Always, ImVec2(1, 1));
  ImGui::SetNextWindowBgAlpha(0.94f);
  ImGui::Begin("Selected range", nullptr,
               ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                   ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoCollapse);
  ImGui::Text("%s selected, %zu event names", format_duration(range_->second - range_->first).c_str(),
              aggregate_.size());
  if (ImGui::BeginTable("aggregate", 4, ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV)) {
    ImGui::TableSetupColumn("name");
    ImGui::TableSetupColumn("count");
    ImGui::TableSetupColumn("total");
    ImGui::TableSetupColumn("self");
    ImGui::TableHeadersRow();
    for (size_t i = 0; i < aggregate_.size() && i < 12; ++i) {
      const RangeAggregate& a = aggregate_[i];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(a.name.c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%zu", a.count);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(format_duration(a.total_ns).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(format_duration(a.self_ns).c_str());
    }
    ImGui::EndTable();
  }
  if (aggregate_.size() > 12) ImGui::TextDisabled("… %zu more", aggregate_.size() - 12);
  ImGui::End();
}

bool TimelineCanvas::update_summary() {
  if (style_ == nullptr || workspace_ == nullptr) return false;
  // The run summarized: the typical one, else the first with events.
  const auto& model = workspace_->timeline().tracks();
  std::optional<size_t> run = typical_;
  for (size_t t = 0; !run && t < model.size(); ++t) {
    if (!model[t].events.empty() && run_base_name(model[t].name) != "Default") run = t;
  }
  if (!run) return false;
  // Op time per colour key (op type, module or backend: what the timeline is coloured by).
  if (!summary_ || summary_->run != *run || summary_->mode != style_->colouring()) {
    summary_ = SummaryShares{*run, style_->colouring(), op_time_by_key(*workspace_, *run, style_->colouring())};
  }
  return true;
}

void TimelineCanvas::draw_summary() {
  ImDrawList* list = ImGui::GetWindowDrawList();
  const float w = ImGui::GetIO().DisplaySize.x;
  const float y0 = kRulerHeight, y1 = kRulerHeight + kSummaryHeight;
  list->AddRectFilled(ImVec2(0, y0), ImVec2(w, y1), IM_COL32(250, 250, 250, 255));
  list->AddLine(ImVec2(0, y1 - 1), ImVec2(w, y1 - 1), IM_COL32(210, 210, 210, 255));
  if (!update_summary()) return;
  const TimelineTrack& track = workspace_->timeline().tracks()[summary_->run];
  double total = 0;
  for (const KeyTime& k : summary_->keys) total += k.ns;
  if (total <= 0) return;
  const std::string title = track.name + " ops " + format_duration(total) + ":";
  list->AddText(ImVec2(6, y0 + 4), kCanvasText, title.c_str());
  // Op types read as the events' labels do ("convolution", not "aten.convolution.default").
  const auto shown = [this](const std::string& key) {
    return summary_->mode == ColourBy::kOpType ? inspector::short_op_name(key) : key;
  };
  // The legend, the five largest keys with their share and the rest as
  // one, is what the strip must say; the bar takes the room it leaves.
  const std::vector<KeyShare> shares = top_shares(summary_->keys);
  std::vector<std::pair<std::string, float>> legend;
  float legend_width = 0;
  for (const KeyShare& share : shares) {
    char percent[16];
    std::snprintf(percent, sizeof percent, " %.0f%%", share.percent);
    const std::string label =
        (share.key.empty() ? std::to_string(share.keys) + " others" : shown(share.key)) + percent;
    legend.emplace_back(label, 16 + ImGui::CalcTextSize(label.c_str()).x + 12);
    legend_width += legend.back().second;
  }
  const float bar0 = 14 + ImGui::CalcTextSize(title.c_str()).x;
  const float bar1 = bar0 + std::max(120.0f, w - bar0 - legend_width - 12);
  float x = bar0;
  for (const auto& [key, ns] : summary_->keys) {
    const float x1 = x + float(ns / total) * (bar1 - bar0);
    list->AddRectFilled(ImVec2(x, y0 + 4), ImVec2(x1, y1 - 5),
                        palette_colour(palette_index(key, TimelineStyle::kPaletteSize)));
    clipped_text(list, x, x1, y0 + 2, kCanvasText, shown(key).c_str());
    x = x1;
  }
  x = bar1 + 12;
  for (size_t i = 0; i < legend.size(); ++i) {
    const auto& [label, width] = legend[i];
    if (x + width > w) break;
    const ImU32 swatch = shares[i].key.empty() ? IM_COL32(200, 200, 200, 255)
                                               : palette_colour(palette_index(shares[i].key, TimelineStyle::kPaletteSize));
    list->AddRectFilled(ImVec2(x, y0 + 6), ImVec2(x + 12, y0 + 18), swatch);
    list->AddText(ImVec2(x + 16, y0 + 4), kCanvasText, label.c_str());
    x += width;
  }
}

void TimelineCanvas::draw_tooltip(const LaneHit& h) {
  const LaneTrack& ref = lanes_.track(h.track);
  if (h.header) {
    ImGui::SetTooltip("%s: click to %s", ref.track->name.c_str(), lanes_.collapsed(lanes_.lane_of(h.track)) ? "expand" : "collapse");
    return;
  }
  if (h.folded) {
    ImGui::SetTooltip("%zu events in %s (click to zoom in)", h.folded->count,
                      format_duration(h.folded->end - h.folded->start).c_str());
    return;
  }
  if (!h.event) return;
  const std::vector<std::string> lines = tooltip_lines({h.track, *h.event});
  ImGui::BeginTooltip();
  for (size_t i = 0; i < lines.size(); ++i) {
    ImGui::TextUnformatted(lines[i].c_str());
    if (i == 0) ImGui::Separator();
  }
  ImGui::EndTooltip();
}

std::vector<std::string> TimelineCanvas::tooltip_lines(EventId id) const {
  std::vector<std::string> lines;
  if (id.first >= lanes_.track_count() || id.second >= lanes_.track(id.first).track->events.size()) return lines;
  const LaneTrack& ref = lanes_.track(id.first);
  const TimelineEvent& event = ref.track->events[id.second];
  lines.push_back(ref.track->name_of(event));
  lines.push_back("duration     " + format_duration(event.end - event.start));
  if (event.instruction_id >= 0) lines.push_back("instruction  " + std::to_string(event.instruction_id));
  const inspector::Event* e = ref.baseline ? nullptr : workspace_->event_of(*ref.track, event);
  if (e == nullptr) return lines;
  if (!e->op_types.empty()) lines.push_back("op types     " + inspector::op_types_text(*e));
  const std::string module = inspector::module_text(*e);
  if (!module.empty()) lines.push_back("module       " + module);
  const std::string source = inspector::source_text(*e, false);
  if (!source.empty()) lines.push_back("source       " + source);
  if (e->is_delegated_op) lines.push_back("delegate id  " + e->name);
  if (!e->delegate_backend_name.empty()) lines.push_back("backend      " + e->delegate_backend_name);
  if (e->perf_data && e->perf_data->raw.size() > 1) {
    const double unit = inspector::nanoseconds_per(workspace_->request().table_unit);
    lines.push_back("p50 of " + std::to_string(e->perf_data->raw.size()) + " runs " +
                    format_duration(e->perf_data->p50 * unit));
  }
  return lines;
}

}  // namespace etkit::gui
