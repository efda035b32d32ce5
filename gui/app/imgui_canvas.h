#pragma once
// A QOpenGLWidget that draws with Dear ImGui: the Qt platform adapter
// (mouse, wheel, keys, text input, device pixel ratio, time) and the
// OpenGL3 renderer around a virtual draw(). Each canvas owns its ImGui
// context, so several can live in one window.

#include <QElapsedTimer>
#include <QOpenGLFunctions>
#include <QOpenGLWidget>
#include <deque>

struct ImGuiContext;

namespace etkit::gui {

/// Makes every GL context a 3.3 core profile, as ImGui's OpenGL3 renderer
/// wants (`#version 330 core`). Call before the QApplication exists.
void use_imgui_gl_format();

class ImGuiCanvas : public QOpenGLWidget, protected QOpenGLFunctions {
  Q_OBJECT
 public:
  explicit ImGuiCanvas(QWidget* parent = nullptr);
  ~ImGuiCanvas() override;

  /// Draws one frame now and waits for the GPU: what a frame costs
  /// (--bench-frames). Returns milliseconds.
  double render_frame_blocking();

 protected:
  /// Draws the canvas's content for this frame; ImGui is current, a
  /// window covering the whole widget is begun.
  virtual void draw() = 0;
  /// The ImGui index of a Qt key, for ImGui::IsKeyDown.
  static int key_index(int qt_key);

  void initializeGL() override;
  void paintGL() override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void keyReleaseEvent(QKeyEvent* event) override;
  void leaveEvent(QEvent* event) override;

 private:
  // Input waits here until a frame takes it: ImGui 1.86 reads state once
  // per frame, so a press and its release in one frame would be lost.
  struct Input {
    enum Kind { kMove, kButton, kWheel, kKey, kText } kind;
    float x = 0, y = 0;
    int button = 0;
    bool down = false;
    unsigned text = 0;
    int key = 0;
    Qt::KeyboardModifiers modifiers;
  };
  void queue(Input input);
  void apply_input();
  void shutdown_imgui();

  ImGuiContext* context_ = nullptr;
  // The GL context's aboutToBeDestroyed connection: cut in our destructor,
  // or QOpenGLWidget's own destructor would call into a half-destroyed us.
  QMetaObject::Connection context_watch_;
  bool backend_ready_ = false;
  QElapsedTimer clock_;
  std::deque<Input> pending_;
};

}  // namespace etkit::gui
