#include "details_panel.h"

#include <QPainter>
#include <QTextBrowser>
#include <QVBoxLayout>

#include "display_format.h"

namespace etkit::gui {
namespace {

QString escaped(const std::string& text) { return QString::fromStdString(text).toHtmlEscaped(); }

QString row(const QString& key, const QString& value) {
  return "<tr><td style='color:#666;padding-right:10px'>" + key + "</td><td>" + value + "</td></tr>";
}

// A graph node the event ran: its source line, module hierarchy and stack.
QString origin_html(const NodeOrigin& origin) {
  QString html = "<h4 style='margin:6px 2px 2px'>node " + escaped(origin.node) + "</h4>";
  if (!origin.source_line.empty()) html += "<div>source: <b>" + escaped(origin.source_line) + "</b></div>";
  if (!origin.modules.empty()) {
    html += "<div>module hierarchy:</div><ul style='margin:0'>";
    for (const auto& frame : origin.modules) {
      html += "<li>" + escaped(frame.path.empty() ? "(root)" : frame.path) + " <span style='color:#666'>(" +
              escaped(frame.type) + ")</span></li>";
    }
    html += "</ul>";
  }
  if (!origin.stack_trace.empty()) {
    html += "<div>stack trace:</div><pre style='font-size:small'>" + escaped(origin.stack_trace) + "</pre>";
  }
  return html;
}

// An output the event logged: shape, statistics and its first values.
QString output_html(size_t index, const OutputPreview& o) {
  QString html = QString("<h4 style='margin:6px 2px 2px'>output %1: %2</h4>").arg(index).arg(escaped(o.shape));
  html += QString("<div>min %1, max %2, mean %3%4</div>")
              .arg(o.stats.min, 0, 'g', 6)
              .arg(o.stats.max, 0, 'g', 6)
              .arg(o.stats.mean, 0, 'g', 6)
              .arg(o.stats.nan_count ? QString(", %1 NaN").arg(o.stats.nan_count) : QString());
  QString values;
  for (double v : o.first_values) values += (values.isEmpty() ? "" : ", ") + QString::number(v, 'g', 5);
  html += "<div style='color:#444'>first values: " + values + (o.stats.count > o.first_values.size() ? ", …" : "") +
          "</div>";
  return html;
}

}  // namespace

void HistogramWidget::set_histogram(Histogram histogram, double unit_ns, std::optional<double> marker) {
  histogram_ = std::move(histogram);
  unit_ns_ = unit_ns;
  marker_ = marker;
  update();
}

void HistogramWidget::set_baseline(std::optional<Histogram> baseline, std::optional<double> marker) {
  baseline_ = std::move(baseline);
  baseline_marker_ = marker;
  update();
}

void HistogramWidget::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  painter.fillRect(rect(), Qt::white);
  if (histogram_.bins.empty()) return;
  const QRectF area = QRectF(rect()).adjusted(6, 6, -6, -22);
  const bool compared = baseline_ && baseline_->bins.size() == histogram_.bins.size();
  const double peak = double(std::max<size_t>({1, histogram_.peak(), compared ? baseline_->peak() : 0}));
  const double bar = area.width() / double(histogram_.bins.size());
  // Bars translucent where two histograms overlay, so both stay visible.
  const auto bars = [&](const Histogram& h, QColor colour) {
    for (size_t i = 0; i < h.bins.size(); ++i) {
      const double height = area.height() * double(h.bins[i]) / peak;
      painter.fillRect(QRectF(area.left() + double(i) * bar + 1, area.bottom() - height, std::max(1.0, bar - 2), height),
                       colour);
    }
  };
  const auto marker = [&](double value, QColor colour, Qt::PenStyle style) {
    if (histogram_.max <= histogram_.min) return;
    const double x = area.left() + area.width() * (value - histogram_.min) / (histogram_.max - histogram_.min);
    painter.setPen(QPen(colour, 2, style));
    painter.drawLine(QPointF(x, area.top()), QPointF(x, area.bottom()));
  };
  const QColor now(0x80, 0xb1, 0xd3, compared ? 170 : 255), before(0x90, 0x90, 0x90, 120);
  if (compared) bars(*baseline_, before);
  bars(histogram_, now);
  if (compared && baseline_marker_) marker(*baseline_marker_, QColor(90, 90, 90), Qt::DashLine);
  if (marker_) marker(*marker_, QColor(200, 60, 40), Qt::SolidLine);
  painter.setPen(Qt::darkGray);
  painter.drawText(QRectF(area.left(), area.bottom() + 3, area.width(), 16), Qt::AlignLeft,
                   QString::fromStdString(format_duration(histogram_.min * unit_ns_)));
  painter.drawText(QRectF(area.left(), area.bottom() + 3, area.width(), 16), Qt::AlignRight,
                   QString::fromStdString(format_duration(histogram_.max * unit_ns_)));
  const auto runs = [](const Histogram& h) {
    size_t count = 0;
    for (size_t c : h.bins) count += c;
    return count;
  };
  const QString caption = compared ? QString("%1 runs (blue) vs baseline's %2 (grey), p50s marked")
                                         .arg(runs(histogram_))
                                         .arg(runs(*baseline_))
                                   : QString("%1 runs, p50 marked").arg(runs(histogram_));
  painter.drawText(QRectF(area.left(), area.bottom() + 3, area.width(), 16), Qt::AlignHCenter, caption);
}

DetailsPanel::DetailsPanel(QWidget* parent) : QWidget(parent) {
  text_ = new QTextBrowser(this);
  text_->setOpenLinks(false);
  histogram_ = new HistogramWidget(this);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(histogram_);
  layout->addWidget(text_, 1);
  clear();
}

void DetailsPanel::clear() {
  histogram_->set_histogram({}, 1, std::nullopt);
  histogram_->hide();
  text_->setHtml("<p style='color:#777'>Select an event in the timeline or the table.</p>");
}

void DetailsPanel::show_text(const QString& html) {
  histogram_->hide();
  text_->setHtml(html);
}

QString DetailsPanel::text() const { return text_->toPlainText(); }

void DetailsPanel::show_details(const EventDetails& d, const char* unit, double unit_ns) {
  QString html = "<h3 style='margin:2px'>" + escaped(d.name) + "</h3><table>";
  html += row("block", escaped(d.block) + QString(" (%1 run%2)").arg(d.runs).arg(d.runs == 1 ? "" : "s"));
  if (d.instruction_id >= 0) html += row("instruction", QString::number(d.instruction_id));
  if (d.perf) {
    const auto& p = *d.perf;
    html += row("p10 / p50 / p90",
                QString("%1 / %2 / %3 %4").arg(p.p10, 0, 'g', 6).arg(p.p50, 0, 'g', 6).arg(p.p90, 0, 'g', 6).arg(unit));
    html += row("min / avg / max",
                QString("%1 / %2 / %3 %4").arg(p.min, 0, 'g', 6).arg(p.avg, 0, 'g', 6).arg(p.max, 0, 'g', 6).arg(unit));
    if (d.baseline_p50 && *d.baseline_p50 > 0) {
      const double change = 100 * (p.p50 - *d.baseline_p50) / *d.baseline_p50;
      html += row("baseline p50", QString("%1 %2 (this trace %3%4%)")
                                      .arg(*d.baseline_p50, 0, 'g', 6)
                                      .arg(unit)
                                      .arg(change >= 0 ? "+" : "")
                                      .arg(change, 0, 'f', 1));
    }
  }
  if (!d.op_types.empty()) {
    QString ops;
    for (const std::string& op : d.op_types) ops += (ops.isEmpty() ? "" : ", ") + escaped(op);
    html += row("op types", ops);
  }
  if (!d.debug_handles.empty()) {
    QString handles;
    for (int64_t h : d.debug_handles) handles += (handles.isEmpty() ? "" : ", ") + QString::number(h);
    html += row("debug handles", handles);
  }
  if (d.delegated || !d.backend.empty()) {
    html += row("delegated", d.delegated ? "yes" : "no (the delegate call)");
    if (!d.delegate_id.empty()) html += row("delegate id", escaped(d.delegate_id));
    if (!d.backend.empty()) html += row("backend", escaped(d.backend));
  }
  html += "</table>";
  for (const NodeOrigin& origin : d.origins) html += origin_html(origin);
  for (size_t i = 0; i < d.outputs.size(); ++i) html += output_html(i, d.outputs[i]);
  text_->setHtml(html);
  if (d.perf && !d.durations.bins.empty()) {
    histogram_->set_histogram(d.durations, unit_ns, d.perf->p50);
    histogram_->set_baseline(d.baseline_durations, d.baseline_p50);
    histogram_->show();
  } else {
    histogram_->hide();
  }
}

}  // namespace etkit::gui
