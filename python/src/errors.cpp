#include "errors.h"

namespace etkit::python {

namespace py = pybind11;

py::str text(std::string_view bytes) {
  PyObject* decoded = PyUnicode_DecodeUTF8(bytes.data(), py::ssize_t(bytes.size()), "replace");
  if (decoded == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(decoded);
}

py::list text_list(const std::vector<std::string>& items) {
  py::list out;
  for (const std::string& item : items) out.append(text(item));
  return out;
}

void register_errors(py::module_& m) {
  // The module attribute keeps the type alive; the translator decodes the
  // message leniently (a corrupt file's names may be anything).
  static PyObject* error_type = nullptr;
  static PyObject* input_error_type = nullptr;
  error_type = py::exception<EtkitError>(m, "Error", PyExc_RuntimeError).ptr();
  const py::tuple bases = py::make_tuple(py::handle(error_type), py::handle(PyExc_ValueError));
  input_error_type = PyErr_NewExceptionWithDoc(
      "etkit.InputError", "An input a method cannot take: its count, dtype or shape.", bases.ptr(), nullptr);
  if (input_error_type == nullptr) throw py::error_already_set();
  m.add_object("InputError", py::handle(input_error_type));
  py::register_exception_translator([](std::exception_ptr thrown) {
    try {
      if (thrown) std::rethrow_exception(thrown);
    } catch (const InputError& error) {
      PyErr_SetObject(input_error_type, text(error.what()).ptr());
    } catch (const EtkitError& error) {
      PyErr_SetObject(error_type, text(error.what()).ptr());
    }
  });
}

}  // namespace etkit::python
