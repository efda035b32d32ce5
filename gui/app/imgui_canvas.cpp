#include "imgui_canvas.h"

#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include <QFile>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QOpenGLContext>
#include <QSurfaceFormat>
#include <QWheelEvent>
#include <chrono>

namespace etkit::gui {
namespace {

// Qt's key codes folded into ImGui's 512 key slots: letters and digits keep
// their ASCII codes, special keys (0x01000000 and up) land above 256.
int fold_key(int qt_key) { return qt_key >= 0x01000000 ? 256 + (qt_key & 0xff) : (qt_key & 0xff); }

// The font: DejaVu Sans when installed (crisper than ImGui's bitmap font),
// else ImGui's own.
void load_font(ImGuiIO& io, float scale) {
  const char* path = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
  if (QFile::exists(path)) {
    static const ImWchar ranges[] = {0x0020, 0x00FF, 0x0394, 0x0394, 0x03BC, 0x03BC, 0x2026, 0x2026, 0x2212, 0x2212, 0};
    if (io.Fonts->AddFontFromFileTTF(path, 14.0f * scale, nullptr, ranges) != nullptr) return;
  }
  io.Fonts->AddFontDefault();
}

}  // namespace

void use_imgui_gl_format() {
  QSurfaceFormat format;
  format.setVersion(3, 3);
  format.setProfile(QSurfaceFormat::CoreProfile);
  QSurfaceFormat::setDefaultFormat(format);
}

ImGuiCanvas::ImGuiCanvas(QWidget* parent) : QOpenGLWidget(parent) {
  setMouseTracking(true);
  setFocusPolicy(Qt::StrongFocus);
  clock_.start();
}

ImGuiCanvas::~ImGuiCanvas() {
  disconnect(context_watch_);
  makeCurrent();
  shutdown_imgui();
  doneCurrent();
}

int ImGuiCanvas::key_index(int qt_key) { return fold_key(qt_key); }

void ImGuiCanvas::shutdown_imgui() {
  if (context_ == nullptr) return;
  ImGui::SetCurrentContext(context_);
  if (backend_ready_) ImGui_ImplOpenGL3_Shutdown();
  backend_ready_ = false;
  ImGui::DestroyContext(context_);
  context_ = nullptr;
}

void ImGuiCanvas::initializeGL() {
  initializeOpenGLFunctions();
  // Qt may re-create the GL context (reparenting, docking): the renderer's
  // objects die with it, and a second init would assert.
  disconnect(context_watch_);
  context_watch_ = connect(context(), &QOpenGLContext::aboutToBeDestroyed, this, [this] {
    makeCurrent();
    shutdown_imgui();
    doneCurrent();
  });
  shutdown_imgui();
  context_ = ImGui::CreateContext();
  ImGui::SetCurrentContext(context_);
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;  // no imgui.ini next to the user's files
  io.ConfigFlags |= ImGuiConfigFlags_NoMouseCursorChange;
  io.KeyMap[ImGuiKey_Tab] = fold_key(Qt::Key_Tab);
  io.KeyMap[ImGuiKey_LeftArrow] = fold_key(Qt::Key_Left);
  io.KeyMap[ImGuiKey_RightArrow] = fold_key(Qt::Key_Right);
  io.KeyMap[ImGuiKey_UpArrow] = fold_key(Qt::Key_Up);
  io.KeyMap[ImGuiKey_DownArrow] = fold_key(Qt::Key_Down);
  io.KeyMap[ImGuiKey_PageUp] = fold_key(Qt::Key_PageUp);
  io.KeyMap[ImGuiKey_PageDown] = fold_key(Qt::Key_PageDown);
  io.KeyMap[ImGuiKey_Home] = fold_key(Qt::Key_Home);
  io.KeyMap[ImGuiKey_End] = fold_key(Qt::Key_End);
  io.KeyMap[ImGuiKey_Delete] = fold_key(Qt::Key_Delete);
  io.KeyMap[ImGuiKey_Backspace] = fold_key(Qt::Key_Backspace);
  io.KeyMap[ImGuiKey_Space] = fold_key(Qt::Key_Space);
  io.KeyMap[ImGuiKey_Enter] = fold_key(Qt::Key_Return);
  io.KeyMap[ImGuiKey_Escape] = fold_key(Qt::Key_Escape);
  io.KeyMap[ImGuiKey_A] = fold_key(Qt::Key_A);
  io.KeyMap[ImGuiKey_C] = fold_key(Qt::Key_C);
  io.KeyMap[ImGuiKey_V] = fold_key(Qt::Key_V);
  io.KeyMap[ImGuiKey_X] = fold_key(Qt::Key_X);
  io.KeyMap[ImGuiKey_Y] = fold_key(Qt::Key_Y);
  io.KeyMap[ImGuiKey_Z] = fold_key(Qt::Key_Z);
  load_font(io, float(devicePixelRatioF()));
  io.FontGlobalScale = 1.0f / float(devicePixelRatioF());
  ImGui::StyleColorsLight();
  ImGuiStyle& style = ImGui::GetStyle();
  style.WindowRounding = 0;
  style.WindowBorderSize = 0;
  backend_ready_ = ImGui_ImplOpenGL3_Init("#version 330 core");
}

void ImGuiCanvas::queue(Input input) {
  pending_.push_back(input);
  update();
}

void ImGuiCanvas::apply_input() {
  ImGuiIO& io = ImGui::GetIO();
  bool button_changed[5] = {};
  while (!pending_.empty()) {
    const Input& in = pending_.front();
    if (in.kind == Input::kButton) {
      if (button_changed[in.button]) break;  // the next frame takes it
      button_changed[in.button] = true;
      io.MouseDown[in.button] = in.down;
    }
    if (in.kind == Input::kMove || in.kind == Input::kButton) io.MousePos = ImVec2(in.x, in.y);
    if (in.kind == Input::kWheel) io.MouseWheel += in.y;
    if (in.kind == Input::kKey && in.key >= 0 && in.key < 512) io.KeysDown[in.key] = in.down;
    if (in.kind == Input::kText) io.AddInputCharacter(in.text);
    io.KeyCtrl = in.modifiers & Qt::ControlModifier;
    io.KeyShift = in.modifiers & Qt::ShiftModifier;
    io.KeyAlt = in.modifiers & Qt::AltModifier;
    pending_.pop_front();
  }
  if (!pending_.empty()) update();
}

void ImGuiCanvas::paintGL() {
  if (context_ == nullptr || !backend_ready_) return;
  ImGui::SetCurrentContext(context_);
  ImGuiIO& io = ImGui::GetIO();
  const float dpr = float(devicePixelRatioF());
  io.DisplaySize = ImVec2(float(width()), float(height()));
  io.DisplayFramebufferScale = ImVec2(dpr, dpr);
  const double seconds = double(clock_.nsecsElapsed()) / 1e9;
  clock_.restart();
  io.DeltaTime = float(std::max(seconds, 1e-4));
  apply_input();
  ImGui_ImplOpenGL3_NewFrame();
  ImGui::NewFrame();
  ImGui::SetNextWindowPos(ImVec2(0, 0));
  ImGui::SetNextWindowSize(io.DisplaySize);
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(0, 0));
  ImGui::Begin("canvas", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                   ImGuiWindowFlags_NoBringToFrontOnFocus | ImGuiWindowFlags_NoScrollWithMouse);
  ImGui::PopStyleVar();
  draw();
  ImGui::End();
  ImGui::Render();
  glViewport(0, 0, int(float(width()) * dpr), int(float(height()) * dpr));
  glClearColor(1, 1, 1, 1);
  glClear(GL_COLOR_BUFFER_BIT);
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

double ImGuiCanvas::render_frame_blocking() {
  makeCurrent();
  const auto start = std::chrono::steady_clock::now();
  glBindFramebuffer(GL_FRAMEBUFFER, defaultFramebufferObject());
  paintGL();
  glFinish();
  const auto end = std::chrono::steady_clock::now();
  doneCurrent();
  return std::chrono::duration<double, std::milli>(end - start).count();
}

void ImGuiCanvas::mouseMoveEvent(QMouseEvent* event) {
  queue({Input::kMove, float(event->position().x()), float(event->position().y()), 0, false, 0, 0, event->modifiers()});
}

void ImGuiCanvas::mousePressEvent(QMouseEvent* event) {
  const int button = event->button() == Qt::RightButton ? 1 : event->button() == Qt::MiddleButton ? 2 : 0;
  queue({Input::kButton, float(event->position().x()), float(event->position().y()), button, true, 0, 0,
         event->modifiers()});
}

void ImGuiCanvas::mouseReleaseEvent(QMouseEvent* event) {
  const int button = event->button() == Qt::RightButton ? 1 : event->button() == Qt::MiddleButton ? 2 : 0;
  queue({Input::kButton, float(event->position().x()), float(event->position().y()), button, false, 0, 0,
         event->modifiers()});
}

void ImGuiCanvas::wheelEvent(QWheelEvent* event) {
  queue({Input::kWheel, 0, float(event->angleDelta().y()) / 120.0f, 0, false, 0, 0, event->modifiers()});
}

void ImGuiCanvas::keyPressEvent(QKeyEvent* event) {
  queue({Input::kKey, 0, 0, 0, true, 0, fold_key(event->key()), event->modifiers()});
  for (QChar c : event->text()) {
    if (c.isPrint()) queue({Input::kText, 0, 0, 0, false, c.unicode(), 0, event->modifiers()});
  }
}

void ImGuiCanvas::keyReleaseEvent(QKeyEvent* event) {
  queue({Input::kKey, 0, 0, 0, false, 0, fold_key(event->key()), event->modifiers()});
}

void ImGuiCanvas::leaveEvent(QEvent*) {
  queue({Input::kMove, -FLT_MAX, -FLT_MAX, 0, false, 0, 0, Qt::NoModifier});
}

}  // namespace etkit::gui
