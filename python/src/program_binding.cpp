// etkit.Program and etkit.Method: load a program (with its .ptd data and
// etkit's delegate backends, as `etinspect run` does), run a method on numpy
// arrays, optionally traced to an ETDump.

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "backend_notes.h"
#include "errors.h"
#include "etkit/core/method.h"
#include "etkit/core/program_summary.h"
#include "numpy_tensors.h"
#include "etkit/session/loaded_program.h"
#include "etkit/session/tracing.h"

namespace py = pybind11;

namespace etkit::python {
namespace {

// A str or os.PathLike argument as a path; TypeError naming the argument
// for anything else.
std::string path_argument(py::handle value, const char* argument) {
  if (py::isinstance<py::str>(value) || py::hasattr(value, "__fspath__")) {
    return py::str(py::module_::import("os").attr("fspath")(value)).cast<std::string>();
  }
  throw py::type_error(std::string(argument) + " must be a path (str or os.PathLike), not " +
                       py::str(py::type::of(value).attr("__name__")).cast<std::string>());
}

// `data=`: None, one path, or a sequence of paths.
std::vector<std::string> data_argument(py::handle value) {
  if (value.is_none()) return {};
  if (py::isinstance<py::str>(value) || py::hasattr(value, "__fspath__")) return {path_argument(value, "data")};
  if (!py::isinstance<py::sequence>(value)) {
    throw py::type_error("data must be a path or a list of paths (.ptd files), not " +
                         py::str(py::type::of(value).attr("__name__")).cast<std::string>());
  }
  std::vector<std::string> paths;
  for (py::handle item : py::reinterpret_borrow<py::sequence>(value)) paths.push_back(path_argument(item, "data[i]"));
  return paths;
}

// The loaded program is shared with its methods: close() lets the program
// go as soon as the methods loaded from it are gone too.
class PyProgram {
 public:
  PyProgram(py::handle path, py::handle data, int threads)
      : PyProgram(path_argument(path, "path"), data_argument(data), threads) {}
  PyProgram(const std::string& path, const std::vector<std::string>& data, int threads) : path_(path), threads_(threads) {
    if (threads < 0) throw py::value_error("threads must be 0 (every core) or more, not " + std::to_string(threads));
    loaded_ = std::shared_ptr<session::LoadedProgram>(unwrap(session::load_program(path, data)));
    for (const MethodSummary& method : summarize(*loaded_->program).methods) methods_.push_back(method.name);
  }
  const std::string& path() const { return path_; }
  int threads() const { return threads_; }
  const std::vector<std::string>& methods() const { return methods_; }
  std::shared_ptr<session::LoadedProgram> loaded() const {
    if (!loaded_) throw py::value_error("the Program " + path_ + " is closed");
    return loaded_;
  }
  void close() { loaded_.reset(); }

 private:
  std::string path_;
  int threads_ = 0;
  std::shared_ptr<session::LoadedProgram> loaded_;
  std::vector<std::string> methods_;
};

// Arrays set as inputs, kept alive until the execute that reads them ends.
struct BorrowedInputs {
  std::vector<py::array> arrays;
};

std::string input_label(const Method& method, size_t index) {
  return "Method.run(inputs): input " + std::to_string(index) + " of method '" + method.name() + "'";
}

void set_tensor_input(Method& method, size_t index, py::handle item, BorrowedInputs& borrowed) {
  const Tensor& spec = method.input(index).unchecked_tensor();
  py::array array = py::module_::import("numpy").attr("asarray")(item);
  // A bfloat16 input takes float values (rounded to nearest even) or bits.
  if (spec.scalar_type() == ScalarType::kBFloat16 && array.dtype().kind() == 'f') array = float_as_bfloat16(array);
  if (!dtype_matches(array, spec.scalar_type())) {
    throw InputError(input_label(method, index) + " is " + describe(spec) + ", given a " +
                     py::str(array.dtype()).cast<std::string>() + " array (convert it with .astype)");
  }
  std::vector<int64_t> sizes(array.shape(), array.shape() + array.ndim());
  // The bytes in the input's dim order (channels-last inputs stay so).
  const std::vector<uint8_t> dim_order(spec.dim_order().begin(), spec.dim_order().end());
  if (dim_order.size() == sizes.size()) {
    py::list axes;
    for (uint8_t d : dim_order) axes.append(int(d));
    array = array.attr("transpose")(axes);
  }
  // C-contiguous and writeable (a read-only array is copied: the tensor
  // view takes a mutable pointer).
  array = py::module_::import("numpy").attr("require")(array, py::none(), py::make_tuple("C", "W"));
  Result<Tensor> view = Tensor::make(spec.scalar_type(), {sizes.data(), sizes.size()},
                                     dim_order.size() == sizes.size() ? Span<const uint8_t>{dim_order.data(), dim_order.size()}
                                                                      : Span<const uint8_t>{},
                                     array.mutable_data(), size_t(array.nbytes()));
  if (!view.ok()) throw InputError(input_label(method, index) + ": " + view.error().message());
  const Status set = method.set_input(index, *view);
  if (!set.ok()) throw InputError(input_label(method, index) + ": " + set.error().message());
  borrowed.arrays.push_back(array);
}

void set_inputs(Method& method, py::handle given, BorrowedInputs& borrowed) {
  // A bare array or a string is a sequence too: say what run takes.
  const bool listlike = py::isinstance<py::sequence>(given) && !py::isinstance<py::str>(given) &&
                        !py::isinstance<py::bytes>(given) && !py::isinstance<py::array>(given);
  if (!listlike) {
    throw py::type_error("Method.run(inputs): inputs must be a list with one value per input of method '" +
                         method.name() + "' (" + std::to_string(method.input_count()) + "), not a " +
                         py::str(py::type::of(given).attr("__name__")).cast<std::string>() +
                         (py::isinstance<py::array>(given) ? " (pass [array])" : ""));
  }
  const auto inputs = py::reinterpret_borrow<py::sequence>(given);
  if (size_t(py::len(inputs)) != method.input_count()) {
    throw InputError("Method.run(inputs): method '" + method.name() + "' takes " +
                     std::to_string(method.input_count()) + " inputs, " +
                     std::to_string(py::len(inputs)) + " given");
  }
  for (size_t i = 0; i < method.input_count(); ++i) {
    const Value& input = method.input(i);
    py::handle item = inputs[i];
    if (input.is_tensor()) {
      set_tensor_input(method, i, item, borrowed);
      continue;
    }
    Value scalar;
    if (input.tag() == ValueTag::kInt) scalar = Value::from_int(item.cast<int64_t>());
    else if (input.tag() == ValueTag::kBool) scalar = Value::from_bool(item.cast<bool>());
    else if (input.tag() == ValueTag::kDouble) scalar = Value::from_double(item.cast<double>());
    else if (!item.is_none()) throw InputError(input_label(method, i) + " takes no value (pass None)");
    else continue;
    const Status set = method.set_input(i, scalar);
    if (!set.ok()) throw InputError(input_label(method, i) + ": " + set.error().message());
  }
}

// `bfloat16_bits`: bfloat16 outputs as their raw bits (marked uint16)
// instead of float32 values.
py::list outputs_of(const Method& method, bool bfloat16_bits) {
  py::list outputs;
  for (size_t i = 0; i < method.output_count(); ++i) {
    const Value& v = method.output(i);
    switch (v.tag()) {
      case ValueTag::kTensor: {
        py::array array = copy_of(v.unchecked_tensor());
        const bool as_float = v.unchecked_tensor().scalar_type() == ScalarType::kBFloat16 && !bfloat16_bits;
        outputs.append(as_float ? bfloat16_as_float32(array) : array);
        break;
      }
      case ValueTag::kInt: outputs.append(py::int_(v.unchecked_int())); break;
      case ValueTag::kDouble: outputs.append(py::float_(v.unchecked_double())); break;
      case ValueTag::kBool: outputs.append(py::bool_(v.unchecked_bool())); break;
      default: outputs.append(py::none());
    }
  }
  return outputs;
}

void execute(Method& method, const std::string& program_path) {
  Status status = Ok{};
  {
    py::gil_scoped_release released;  // inputs are borrowed: their arrays are held by the caller's frame
    status = method.execute();
  }
  if (!status.ok()) throw EtkitError(program_path + ": " + status.error().message());
}

// Holds a method's run mutex. Waits without the GIL: the thread running
// the method needs the GIL back to finish, and must not wait on a waiter.
class RunLock {
 public:
  explicit RunLock(std::mutex& mutex) : lock_(mutex, std::defer_lock) {
    py::gil_scoped_release released;
    lock_.lock();
  }

 private:
  std::unique_lock<std::mutex> lock_;
};

class PyMethod {
 public:
  PyMethod(const PyProgram& program, const std::string& name)
      : loaded_(program.loaded()), path_(program.path()), threads_(program.threads()), name_(name) {
    auto method = Method::load(*loaded_->program, name, session::method_options_for(*loaded_, threads_));
    log_backend_notes();
    method_ = unwrap(std::move(method));
  }

  const std::string& name() const { return name_; }

  /// (dtype name, sizes) per input; scalars as (tag, None).
  /// InputSpec(dtype, sizes) per input; scalars as (tag, None).
  py::list input_specs() const {
    const py::object spec = py::module_::import("etkit._etkit").attr("InputSpec");
    py::list specs;
    for (size_t i = 0; i < method_->input_count(); ++i) {
      const Value& v = method_->input(i);
      if (v.is_tensor()) {
        const Tensor& t = v.unchecked_tensor();
        specs.append(spec(to_string(t.scalar_type()), std::vector<int64_t>(t.sizes().begin(), t.sizes().end())));
      } else {
        specs.append(spec(to_string(v.tag()), py::none()));
      }
    }
    return specs;
  }

  py::list run(py::handle inputs, const std::optional<std::string>& etdump,
               const std::optional<std::string>& debug_buffer, const std::string& debug_level,
               const std::string& bfloat16) {
    if (bfloat16 != "float32" && bfloat16 != "bits") {
      throw py::value_error("Method.run(bfloat16=): 'float32' (values) or 'bits' (raw uint16), not '" + bfloat16 + "'");
    }
    const bool bits = bfloat16 == "bits";
    // One run at a time: the method's planned memory is shared by every
    // call, and the GIL is released while it executes.
    const RunLock lock(run_mutex_);
    if (!etdump) {
      if (debug_buffer || debug_level != "none") {
        throw py::value_error("Method.run(debug_buffer=, debug_level=) need etdump= (the trace they belong to)");
      }
      BorrowedInputs borrowed;
      set_inputs(*method_, inputs, borrowed);
      execute(*method_, path_);
      return outputs_of(*method_, bits);
    }
    // Traced: a copy of the method loaded with the recorder, so the trace
    // holds its load block and one "Execute" block, as `etinspect run
    // --etdump` writes (delegates prepare per-node events at load). The
    // copy starts from this method's state and hands it back, so a traced
    // step of a KV-cache decoder computes what the untraced step would.
    // The session library's messages name etinspect's flags: say these in
    // run's own argument names first.
    if (debug_level != "none" && debug_level != "outputs" && debug_level != "intermediates") {
      throw py::value_error("Method.run(debug_level=): 'none', 'outputs' or 'intermediates', not '" + debug_level +
                            "'");
    }
    if (debug_level != "none" && !debug_buffer) {
      throw py::value_error("Method.run(debug_level='" + debug_level +
                            "') needs debug_buffer= (the file the logged tensors are written to)");
    }
    session::TracingOptions options;
    options.etdump = *etdump;
    options.debug_level = debug_level;
    options.debug_buffer = debug_buffer.value_or("");
    session::Tracing tracing;
    check(session::setup_tracing(options, 1024, 8, tracing));
    MethodOptions method_options = session::method_options_for(*loaded_, threads_);
    method_options.tracer = tracing.gen.get();
    auto loaded_copy = Method::load(*loaded_->program, name_, method_options);
    log_backend_notes();
    std::unique_ptr<Method> traced = unwrap(std::move(loaded_copy));
    check(traced->copy_state_from(*method_));
    tracing.gen->reserve_events(64 + traced->trace_events_per_execute(debug_level != "none"));
    BorrowedInputs borrowed;
    set_inputs(*traced, inputs, borrowed);
    execute(*traced, path_);
    py::list outputs = outputs_of(*traced, bits);
    check(method_->copy_state_from(*traced));
    check(tracing.finish(*etdump));
    return outputs;
  }

  void reset_state() {
    const RunLock lock(run_mutex_);
    method_->reset_state();
  }


 private:
  std::shared_ptr<session::LoadedProgram> loaded_;  // outlives method_, which reads it
  std::string path_;
  int threads_ = 0;
  std::string name_;
  std::unique_ptr<Method> method_;
  std::mutex run_mutex_;
};

// Program's and Method's members; register_program makes both classes
// first, so each signature names the other by its Python name.
void define_program(py::class_<PyProgram, std::shared_ptr<PyProgram>>& program) {
  program
      .def(py::init<py::handle, py::handle, int>(), py::arg("path"), py::arg("data") = py::none(),
           py::arg("threads") = 0,
           "__init__(self, /, path, data=None, threads=0)\n--\n\n"
           "Loads a .pte (or the program inside a .bpte) and its .ptd data files (`data`: a path or a list "
           "of paths). Its methods run on `threads` worker threads (0: every core; 1: the calling thread), "
           "with the same results for any count.")
      .def_property_readonly("path", &PyProgram::path, "The program's file.")
      .def_property_readonly(
          "methods", [](const PyProgram& p) { return text_list(p.methods()); }, "The method names.")
      .def(
          "method",
          [](const PyProgram& self, const std::string& name) { return std::make_shared<PyMethod>(self, name); },
          py::arg("name") = "forward",
          "method(self, /, name='forward')\n--\n\n"
          "Loads a method (its kernels and delegates are checked here).")
      .def("close", &PyProgram::close,
           "close(self, /)\n--\n\n"
           "Lets the program go (its file mapping, once the methods loaded from it are gone too); method() then "
           "raises ValueError.")
      .def("__enter__", [](py::object self) { return self; }, "__enter__(self, /)\n--\n\n")
      .def("__exit__", [](PyProgram& self, py::args) { self.close(); }, "__exit__(self, /, *args)\n--\n\nCloses it.")
      .def("__repr__", [](const PyProgram& p) { return "<etkit.Program " + p.path() + ">"; });
}

void define_method(py::class_<PyMethod, std::shared_ptr<PyMethod>>& method_class) {
  method_class.def_property_readonly("name", &PyMethod::name, "The method's name.")
      .def_property_readonly("inputs", &PyMethod::input_specs,
                             "InputSpec(dtype, sizes) of each input (a named tuple; scalars have sizes None).")
      .def("run", &PyMethod::run, py::arg("inputs"), py::arg("etdump") = py::none(),
           py::arg("debug_buffer") = py::none(), py::arg("debug_level") = "none", py::arg("bfloat16") = "float32",
           "run(self, /, inputs, etdump=None, debug_buffer=None, debug_level='none', bfloat16='float32')\n--\n\n"
           "Runs the method on numpy arrays (one per input) and returns its outputs as new arrays; one call at a "
           "time (other threads wait). With etdump, a copy of the method loaded with the recorder runs traced from "
           "this method's state (a KV cache), hands the state back, and the trace is written there. bfloat16 outputs "
           "come back as float32 values (exact), or with bfloat16='bits' as uint16 arrays of the raw bits; a bfloat16 "
           "input takes float arrays (rounded to nearest even) or such bits.")
      .def("reset_state", &PyMethod::reset_state,
           "reset_state(self, /)\n--\n\nPuts mutable buffers (a KV cache) back to their initial state.")
      .def("__repr__", [](const PyMethod& method) { return "<etkit.Method " + method.name() + ">"; });
}

}  // namespace

void register_program(py::module_& m) {
  m.attr("InputSpec") = py::module_::import("collections").attr("namedtuple")("InputSpec", py::make_tuple("dtype", "sizes"));
  m.attr("InputSpec").attr("__module__") = "etkit";
  // Docstrings carry their own signature line, in the form CPython reads
  // into __text_signature__ ("name(self, /, ...)" then "--"), so
  // inspect.signature and help() show Python's names and defaults instead
  // of pybind11's C++ types.
  py::options options;
  options.disable_function_signatures();
  py::class_<PyProgram, std::shared_ptr<PyProgram>> program(m, "Program", R"(A loaded ExecuTorch program.

Program(path, data=None, threads=0) loads a .pte (or the program inside a
.bpte) and its .ptd data files; methods run with etkit's kernels and
backends. A context manager: leaving the block closes it.

>>> with etkit.Program(f"{samples}/tiny/affine.pte") as program:
...     program.methods
['forward']
)");
  py::class_<PyMethod, std::shared_ptr<PyMethod>> method_class(m, "Method", R"(One method of a Program, loaded and ready to run.

>>> method = etkit.Program(f"{samples}/tiny/affine.pte").method()
>>> method.inputs
[InputSpec(dtype='float32', sizes=[2, 2])]
>>> method.run([np.ones((2, 2), np.float32)])[0].tolist()
[[5.0, 5.0], [5.0, 5.0]]
)");
  define_program(program);
  define_method(method_class);
}

}  // namespace etkit::python
