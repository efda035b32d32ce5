#include "files_panel.h"

#include <QListWidget>
#include <QVBoxLayout>

#include "etkit/gui/workspace.h"

namespace etkit::gui {
namespace {
constexpr int kProblemRole = Qt::UserRole + 1;
}

FilesPanel::FilesPanel(QWidget* parent) : QWidget(parent) {
  list_ = new QListWidget(this);
  list_->setWordWrap(true);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(list_);
}

void FilesPanel::show_workspace(const Workspace* workspace) {
  list_->clear();
  if (workspace == nullptr) return;
  for (const FileProblem& problem : workspace->errors()) {
    auto* item = new QListWidgetItem(QString("✖ %1\n    %2").arg(QString::fromStdString(problem.path),
                                                                 QString::fromStdString(problem.message)));
    item->setForeground(QColor(180, 20, 20));
    item->setData(kProblemRole, QString::fromStdString(problem.path + ": " + problem.message));
    list_->addItem(item);
  }
  for (const FileProblem& warning : workspace->warnings()) {
    auto* item = new QListWidgetItem(QString("⚠ %1\n    %2").arg(QString::fromStdString(warning.path),
                                                                 QString::fromStdString(warning.message)));
    item->setForeground(QColor(160, 100, 0));
    list_->addItem(item);
  }
  for (const OpenedFile& file : workspace->files()) {
    list_->addItem(QString("%1: %2\n    %3")
                       .arg(to_string(file.role), QString::fromStdString(file.path),
                            QString::fromStdString(file.description)));
  }
}

QStringList FilesPanel::problems() const {
  QStringList lines;
  for (int i = 0; i < list_->count(); ++i) {
    const QVariant problem = list_->item(i)->data(kProblemRole);
    if (problem.isValid()) lines << problem.toString();
  }
  return lines;
}

}  // namespace etkit::gui
