#pragma once
// The workspace's files and problems: what each opened file is to the
// workspace, and for each file that could not be used, its path and why
// (the error panel; the app keeps working).

#include <QWidget>

class QListWidget;

namespace etkit::gui {

class Workspace;

class FilesPanel : public QWidget {
  Q_OBJECT
 public:
  explicit FilesPanel(QWidget* parent = nullptr);
  void show_workspace(const Workspace* workspace);
  /// Lines shown for problems, for tests: "path: message".
  QStringList problems() const;
  QListWidget* list() const { return list_; }

 private:
  QListWidget* list_;
};

}  // namespace etkit::gui
