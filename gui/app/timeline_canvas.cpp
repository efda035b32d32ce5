#include "timeline_canvas.h"

#include <imgui.h>

#include <QKeyEvent>
#include <QResizeEvent>
#include <QMouseEvent>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "etkit/gui/workspace.h"
#include "etkit/inspector/event_text.h"
#include "palette.h"
#include "display_format.h"

namespace etkit::gui {
namespace {

constexpr float kRulerHeight = 26;
constexpr float kHeaderHeight = 20;
constexpr float kRowHeight = 18;
constexpr float kTrackGap = 4;
constexpr double kMinPixels = 3;  // narrower events fold (Tracy's rule)
constexpr ImU32 kText = IM_COL32(20, 20, 20, 255);
constexpr ImU32 kFolded = IM_COL32(170, 170, 170, 255);
constexpr ImU32 kHatch = IM_COL32(120, 120, 120, 255);

// Text clipped to [x0, x1] on one line, when at least a few characters fit.
void clipped_text(ImDrawList* list, float x0, float x1, float y, ImU32 colour, const char* text) {
  if (x1 - x0 < 24) return;
  list->PushClipRect(ImVec2(x0, y), ImVec2(x1, y + kRowHeight), true);
  list->AddText(ImVec2(x0 + 3, y + 2), colour, text);
  list->PopClipRect();
}

}  // namespace

TimelineCanvas::TimelineCanvas(QWidget* parent) : ImGuiCanvas(parent) { setMinimumSize(320, 200); }

void TimelineCanvas::set_workspace(const Workspace* workspace, const TimelineStyle* style) {
  workspace_ = workspace;
  style_ = style;
  selection_.reset();
  range_.reset();
  aggregate_.clear();
  scroll_y_ = 0;
  tracks_ = visible_tracks();
  collapsed_.assign(tracks_.size(), false);
  fit_all();
}

void TimelineCanvas::set_show_baseline(bool show) {
  show_baseline_ = show;
  tracks_ = visible_tracks();
  collapsed_.resize(tracks_.size(), false);
  clamp_scroll();
  update();
}

std::vector<TimelineCanvas::TrackRef> TimelineCanvas::visible_tracks() const {
  std::vector<TrackRef> refs;
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
  update();
}

float TimelineCanvas::track_height(size_t track) const {
  if (collapsed_[track]) return kHeaderHeight + kTrackGap;
  return kHeaderHeight + float(tracks_[track].track->max_depth + 1) * kRowHeight + kTrackGap;
}

float TimelineCanvas::track_top(size_t track) const {
  float y = kRulerHeight - scroll_y_;
  for (size_t t = 0; t < track; ++t) y += track_height(t);
  return y;
}

float TimelineCanvas::content_height() const {
  float h = 0;
  for (size_t t = 0; t < tracks_.size(); ++t) h += track_height(t);
  return h;
}

void TimelineCanvas::clamp_scroll() {
  const float max_scroll = std::max(0.0f, content_height() - float(height()) + kRulerHeight);
  scroll_y_ = std::clamp(scroll_y_, 0.0f, max_scroll);
}

std::optional<TimelineCanvas::Hit> TimelineCanvas::hit(float x, float y) const {
  if (y < kRulerHeight) return std::nullopt;
  float top = kRulerHeight - scroll_y_;
  for (size_t t = 0; t < tracks_.size(); ++t) {
    const float h = track_height(t);
    if (y >= top && y < top + h) {
      Hit result{t, y < top + kHeaderHeight, std::nullopt, std::nullopt};
      if (result.header || collapsed_[t]) return result;
      const int depth = int((y - top - kHeaderHeight) / kRowHeight);
      const TimelineTrack& track = *tracks_[t].track;
      const double time = viewport_.time_at(x);
      // What is drawn there: a folded span answers for its events.
      const double half = viewport_.ns_per_pixel;
      for (const DrawItem& item : layout_track(track, time - half, time + half, viewport_.ns_per_pixel, kMinPixels)) {
        if (item.depth != depth || item.start > time + half || item.end < time - half) continue;
        if (item.folded) result.folded = item;
        else if (time >= item.start - half && time <= item.end + half) result.event = item.first_event;
      }
      if (!result.event && !result.folded) result.event = hit_test(track, time, depth);
      return result;
    }
    top += h;
  }
  return std::nullopt;
}

std::optional<QRectF> TimelineCanvas::event_rect(EventId event) const {
  if (event.first >= tracks_.size() || collapsed_[event.first]) return std::nullopt;
  const TimelineTrack& track = *tracks_[event.first].track;
  if (event.second >= track.events.size()) return std::nullopt;
  const TimelineEvent& e = track.events[event.second];
  const float top = track_top(event.first) + kHeaderHeight + float(e.depth) * kRowHeight;
  if (top + kRowHeight < kRulerHeight || top > float(height())) return std::nullopt;
  const double x0 = viewport_.x_of(e.start), x1 = viewport_.x_of(e.end);
  return QRectF(x0, top, std::max(1.0, x1 - x0), kRowHeight);
}

void TimelineCanvas::select(std::optional<EventId> event, bool frame) {
  selection_ = event;
  if (event && frame && event->first < tracks_.size()) {
    collapsed_[event->first] = false;
    const TimelineEvent& e = tracks_[event->first].track->events.at(event->second);
    const double pad = std::max((e.end - e.start) * 0.25, 1.0);
    viewport_.fit(e.start - pad, e.end + pad, std::max(1, width()));
    fitted_ = false;
    // Scroll so the event's row sits in the upper third of the canvas.
    const float row = track_top(event->first) + scroll_y_ + kHeaderHeight + float(e.depth) * kRowHeight;
    scroll_y_ = row - kRulerHeight - float(height()) / 3;
    clamp_scroll();
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
  for (size_t t = 0; t < tracks_.size(); ++t) {
    if (tracks_[t].baseline) continue;
    const std::vector<TimelineEvent>& events = tracks_[t].track->events;
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
  scroll_y_ -= float(delta.y());
  clamp_scroll();
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
    collapsed_[h->track] = !collapsed_[h->track];
    clamp_scroll();
    update();
    return;
  }
  if (h->folded) {  // a click on "N events" zooms into them
    viewport_.fit(h->folded->start, h->folded->end, std::max(1, width()));
    fitted_ = false;
    update();
    return;
  }
  if (tracks_[h->track].baseline) return;  // baseline events have no table rows
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
    scroll_y_ -= float(steps * 3 * kRowHeight);
    clamp_scroll();
  } else {
    viewport_.zoom_at(event->position().x(), std::pow(1.25, steps));
    fitted_ = false;
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
  }
  switch (event->key()) {
    case Qt::Key_W: viewport_.zoom_at(x, 1.25); break;
    case Qt::Key_S: viewport_.zoom_at(x, 0.8); break;
    case Qt::Key_A: viewport_.pan(-0.1 * width()); break;
    case Qt::Key_D: viewport_.pan(0.1 * width()); break;
    case Qt::Key_F: fit_all(); break;
    case Qt::Key_Up: scroll_y_ -= 3 * kRowHeight; break;
    case Qt::Key_Down: scroll_y_ += 3 * kRowHeight; break;
    case Qt::Key_PageUp: scroll_y_ -= float(height()) * 0.8f; break;
    case Qt::Key_PageDown: scroll_y_ += float(height()) * 0.8f; break;
    case Qt::Key_Escape:
      range_.reset();
      aggregate_.clear();
      break;
    default: return;
  }
  clamp_scroll();
  update();
}

void TimelineCanvas::resizeEvent(QResizeEvent* event) {
  // Keep the visible time span when the canvas changes width.
  const int old_width = event->oldSize().width();
  ImGuiCanvas::resizeEvent(event);
  if (fitted_) fit_all();
  else if (old_width > 0 && width() > 0) viewport_.ns_per_pixel *= double(old_width) / double(width());
  clamp_scroll();
}

// --- drawing (ImGui side) ---

void TimelineCanvas::draw() {
  ImDrawList* list = ImGui::GetWindowDrawList();
  const ImVec2 size = ImGui::GetIO().DisplaySize;
  if (workspace_ == nullptr || tracks_.empty()) {
    const char* hint = workspace_ == nullptr ? "Open a trace: File > Open, or drop files here"
                                             : "No trace in this workspace: open an .etdp";
    const ImVec2 text = ImGui::CalcTextSize(hint);
    list->AddText(ImVec2((size.x - text.x) / 2, (size.y - text.y) / 2), IM_COL32(110, 110, 110, 255), hint);
    return;
  }
  float top = kRulerHeight - scroll_y_;
  for (size_t t = 0; t < tracks_.size(); ++t) {
    const float h = track_height(t);
    if (top + h >= kRulerHeight && top <= size.y) draw_track(tracks_[t], t, top);
    top += h;
    if (top > size.y) break;
  }
  draw_range();
  draw_ruler();
  draw_legend();
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
  for (double t = std::floor(viewport_.t0 / step) * step; t <= t1; t += step) {
    const float x = float(viewport_.x_of(t));
    list->AddLine(ImVec2(x, kRulerHeight - 8), ImVec2(x, kRulerHeight - 1), IM_COL32(120, 120, 120, 255));
    for (int minor = 1; minor < 5; ++minor) {
      const float mx = float(viewport_.x_of(t + step * minor / 5));
      list->AddLine(ImVec2(mx, kRulerHeight - 4), ImVec2(mx, kRulerHeight - 1), IM_COL32(170, 170, 170, 255));
    }
    list->AddText(ImVec2(x + 3, 4), kText, format_duration(t).c_str());
  }
}

void TimelineCanvas::draw_track(const TrackRef& ref, size_t t, float top) {
  ImDrawList* list = ImGui::GetWindowDrawList();
  const float w = ImGui::GetIO().DisplaySize.x;
  const TimelineTrack& track = *ref.track;
  const ImU32 header = ref.baseline ? IM_COL32(255, 236, 210, 255) : IM_COL32(232, 236, 242, 255);
  list->AddRectFilled(ImVec2(0, top), ImVec2(w, top + kHeaderHeight), header);
  const double span = track.end - track.start;
  std::string title = std::string(collapsed_[t] ? "+ " : "- ") + (ref.baseline ? "baseline: " : "") + track.name +
                      "   " + std::to_string(track.events.size()) + " events, " + format_duration(span);
  if (track.bundled_input_index >= 0) title += ", bundled input " + std::to_string(track.bundled_input_index);
  list->AddText(ImVec2(6, top + 3), kText, title.c_str());
  if (collapsed_[t]) return;
  const double t0 = viewport_.t0, t1 = viewport_.time_at(w);
  const bool searching = style_ != nullptr && !ref.baseline && !style_->search_text().empty();
  for (const DrawItem& item : layout_track(track, t0, t1, viewport_.ns_per_pixel, kMinPixels)) {
    const float y0 = top + kHeaderHeight + float(item.depth) * kRowHeight;
    if (y0 + kRowHeight < kRulerHeight) continue;
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
      if (x1 - x0 > ImGui::CalcTextSize(count.c_str()).x + 8) clipped_text(list, x0, x1, y0, kText, count.c_str());
      continue;
    }
    const TimelineEvent& event = track.events[item.first_event];
    const bool match = !searching || style_->matches(ref.index, item.first_event);
    const uint32_t colour = ref.baseline || style_ == nullptr ? palette_index(track.name_of(event), 16)
                                                              : style_->colour(ref.index, item.first_event);
    list->AddRectFilled(a, b, palette_colour(colour, match ? 255 : 60));
    if (searching && match) list->AddRect(a, b, IM_COL32(230, 120, 0, 255), 0, 0, 2);
    if (!ref.baseline && selection_ && selection_->first == t && selection_->second == item.first_event) {
      list->AddRect(ImVec2(a.x - 1, a.y - 1), ImVec2(b.x + 1, b.y + 1), IM_COL32(0, 0, 0, 255), 0, 0, 2.5f);
    }
    clipped_text(list, x0, x1, y0, match ? kText : IM_COL32(20, 20, 20, 110), track.name_of(event).c_str());
  }
}

void TimelineCanvas::draw_range() {
  if (!range_) return;
  ImDrawList* list = ImGui::GetWindowDrawList();
  const ImVec2 size = ImGui::GetIO().DisplaySize;
  const float x0 = float(viewport_.x_of(range_->first)), x1 = float(viewport_.x_of(range_->second));
  list->AddRectFilled(ImVec2(x0, kRulerHeight), ImVec2(x1, size.y), IM_COL32(60, 120, 220, 40));
  list->AddLine(ImVec2(x0, kRulerHeight), ImVec2(x0, size.y), IM_COL32(60, 120, 220, 200));
  list->AddLine(ImVec2(x1, kRulerHeight), ImVec2(x1, size.y), IM_COL32(60, 120, 220, 200));
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

void TimelineCanvas::draw_legend() {
  if (style_ == nullptr || style_->legend().empty()) return;
  ImDrawList* list = ImGui::GetWindowDrawList();
  const float w = ImGui::GetIO().DisplaySize.x;
  const size_t shown = std::min<size_t>(style_->legend().size(), 8);
  float width = 0;
  for (size_t i = 0; i < shown; ++i) width = std::max(width, ImGui::CalcTextSize(style_->legend()[i].key.c_str()).x);
  const float x0 = w - width - 36, y0 = kRulerHeight + 6;
  list->AddRectFilled(ImVec2(x0 - 6, y0 - 4), ImVec2(w - 6, y0 + float(shown) * 17 + 4), IM_COL32(255, 255, 255, 225));
  for (size_t i = 0; i < shown; ++i) {
    const auto& entry = style_->legend()[i];
    const float y = y0 + float(i) * 17;
    list->AddRectFilled(ImVec2(x0, y + 2), ImVec2(x0 + 12, y + 14), palette_colour(entry.colour));
    list->AddText(ImVec2(x0 + 18, y), kText, entry.key.c_str());
  }
}

void TimelineCanvas::draw_tooltip(const Hit& h) {
  const TrackRef& ref = tracks_[h.track];
  if (h.header) {
    ImGui::SetTooltip("%s: click to %s", ref.track->name.c_str(), collapsed_[h.track] ? "expand" : "collapse");
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
  if (id.first >= tracks_.size() || id.second >= tracks_[id.first].track->events.size()) return lines;
  const TrackRef& ref = tracks_[id.first];
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
