#include "events_view.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QTableView>
#include <QVBoxLayout>

namespace etkit::gui {

void EventsTableModel::set_table(std::unique_ptr<EventsTable> table) {
  beginResetModel();
  table_ = std::move(table);
  endResetModel();
}

int EventsTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() || !table_ ? 0 : int(table_->row_count());
}

int EventsTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() || !table_ ? 0 : int(table_->columns().size());
}

QVariant EventsTableModel::data(const QModelIndex& index, int role) const {
  if (!table_ || !index.isValid()) return {};
  const size_t row = size_t(index.row()), column = size_t(index.column());
  if (role == Qt::DisplayRole) return QString::fromStdString(table_->text(row, column));
  if (role == Qt::TextAlignmentRole && table_->numeric(column)) return int(Qt::AlignRight | Qt::AlignVCenter);
  if (role == Qt::ForegroundRole && table_->columns()[column] == Column::kDeltaPercent) {
    const auto v = table_->number(row, column);
    if (v && *v > 5) return QColor(190, 30, 30);
    if (v && *v < -5) return QColor(20, 130, 40);
  }
  return {};
}

QVariant EventsTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (!table_ || role != Qt::DisplayRole) return {};
  if (orientation == Qt::Vertical) return section + 1;
  return QString::fromStdString(table_->header(size_t(section)));
}

// The selection (and every other persistent index) follows its event to
// its new row: after a sort the highlighted row is still the event the
// details and the timeline show.
void EventsTableModel::sort(int column, Qt::SortOrder order) {
  if (!table_ || column < 0) return;
  emit layoutAboutToBeChanged();
  const QModelIndexList before = persistentIndexList();
  std::vector<std::pair<size_t, size_t>> places;
  for (const QModelIndex& index : before) places.push_back(table_->place(size_t(index.row())));
  table_->sort(size_t(column), order == Qt::AscendingOrder);
  QModelIndexList after;
  for (size_t i = 0; i < places.size(); ++i) {
    const auto row = table_->row_of(places[i].first, places[i].second);
    after.push_back(row ? index(int(*row), before[int(i)].column()) : QModelIndex());
  }
  changePersistentIndexList(before, after);
  emit layoutChanged();
}

void EventsTableModel::set_filter(const QString& text) {
  if (!table_) return;
  beginResetModel();
  table_->set_filter(text.toStdString());
  endResetModel();
}

EventsView::EventsView(QWidget* parent) : QWidget(parent) {
  filter_ = new QLineEdit(this);
  filter_->setPlaceholderText("Filter: event name, op type, module or source");
  filter_->setClearButtonEnabled(true);
  count_ = new QLabel(this);
  auto* bar = new QHBoxLayout();
  bar->addWidget(filter_, 1);
  bar->addWidget(count_);
  model_ = new EventsTableModel(this);
  view_ = new QTableView(this);
  view_->setModel(model_);
  view_->setSortingEnabled(true);
  view_->setSelectionBehavior(QAbstractItemView::SelectRows);
  view_->setSelectionMode(QAbstractItemView::SingleSelection);
  view_->setAlternatingRowColors(true);
  view_->verticalHeader()->setDefaultSectionSize(20);
  view_->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);  // a million rows stay fast
  view_->horizontalHeader()->setSortIndicatorShown(true);
  view_->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);  // until a table is set
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(bar);
  layout->addWidget(view_);
  connect(filter_, &QLineEdit::textChanged, this, [this](const QString& text) {
    model_->set_filter(text);
    update_count();
  });
  connect(view_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& current) {
            if (selecting_ || !current.isValid() || model_->table() == nullptr) return;
            const auto [block, event] = model_->table()->place(size_t(current.row()));
            emit event_selected(block, event);
          });
}

void EventsView::set_table(std::unique_ptr<EventsTable> table) {
  model_->set_table(std::move(table));
  if (!filter_->text().isEmpty()) model_->set_filter(filter_->text());
  // Opens sorted by share of the run, largest first: where the time goes.
  int share = -1;
  if (model_->table() != nullptr) {
    for (size_t c = 0; c < model_->table()->columns().size(); ++c) {
      if (model_->table()->columns()[c] == Column::kShare) share = int(c);
    }
  }
  view_->horizontalHeader()->setSortIndicator(share, Qt::DescendingOrder);
  if (model_->columnCount() > 0) {
    view_->resizeColumnsToContents();
    for (int c = 0; c < model_->columnCount(); ++c) view_->setColumnWidth(c, std::min(view_->columnWidth(c), 360));
  }
  update_count();
}

bool EventsView::select_event(size_t block, size_t event) {
  if (model_->table() == nullptr) return false;
  const auto row = model_->table()->row_of(block, event);
  if (!row) return false;
  selecting_ = true;
  const QModelIndex index = model_->index(int(*row), 0);
  view_->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
  view_->scrollTo(index, QAbstractItemView::PositionAtCenter);
  selecting_ = false;
  return true;
}

std::optional<std::pair<size_t, size_t>> EventsView::selected_event() const {
  const QModelIndex current = view_->selectionModel()->currentIndex();
  if (!current.isValid() || model_->table() == nullptr) return std::nullopt;
  return model_->table()->place(size_t(current.row()));
}

void EventsView::update_count() {
  const int rows = model_->rowCount();
  count_->setText(QString("%1 events").arg(rows));
}

}  // namespace etkit::gui
