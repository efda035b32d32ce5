#pragma once
// The events table: a Qt model over the EventsTable view model (the rows
// and columns of `etinspect table`), a filter box, and selection that the
// main window keeps in step with the timeline.

#include <QAbstractTableModel>
#include <QWidget>
#include <memory>
#include <optional>

#include "etkit/gui/events_table.h"

class QLineEdit;
class QTableView;
class QLabel;

namespace etkit::gui {

class EventsTableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  using QAbstractTableModel::QAbstractTableModel;
  void set_table(std::unique_ptr<EventsTable> table);
  EventsTable* table() const { return table_.get(); }
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;
  void sort(int column, Qt::SortOrder order) override;
  void set_filter(const QString& text);

 private:
  std::unique_ptr<EventsTable> table_;
};

class EventsView : public QWidget {
  Q_OBJECT
 public:
  explicit EventsView(QWidget* parent = nullptr);
  void set_table(std::unique_ptr<EventsTable> table);
  /// Selects the row of event (block, event) without emitting; false when
  /// the filter hides it.
  bool select_event(size_t block, size_t event);
  /// (block, event) of the selected row.
  std::optional<std::pair<size_t, size_t>> selected_event() const;
  QTableView* view() const { return view_; }
  QLineEdit* filter() const { return filter_; }
  EventsTableModel* model() const { return model_; }

 signals:
  void event_selected(size_t block, size_t event);

 private:
  void update_count();
  QLineEdit* filter_;
  QLabel* count_;
  QTableView* view_;
  EventsTableModel* model_;
  bool selecting_ = false;  // set while the view is selected from outside
};

}  // namespace etkit::gui
