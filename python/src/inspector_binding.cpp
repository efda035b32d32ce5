// etkit._Inspector: a trace grouped into event blocks, linked to an
// ETRecord, with the debug buffer's tensors as zero-copy numpy views. The
// Python class etkit.Inspector (python/etkit/inspector.py) gives it
// upstream's names; this file does the work that must be fast on traces of
// millions of events: grouping, linking and building dataframe columns.

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "bulk_arenas.h"
#include "errors.h"
#include "etkit/core/file_data.h"
#include "etkit/core/program.h"
#include "etkit/core/program_summary.h"
#include "etkit/etdump/etdump_reader.h"
#include "etkit/etrecord/etrecord.h"
#include "etkit/inspector/block_workers.h"
#include "etkit/inspector/event_blocks.h"
#include "etkit/inspector/module_totals.h"
#include "etkit/inspector/source_links.h"
#include "numpy_tensors.h"

namespace py = pybind11;

namespace etkit::python {
namespace {

// Upstream truncates long op type lists in its dataframe.
py::object op_types_cell(const std::vector<std::string>& op_types) {
  if (op_types.size() < 5) return text_list(op_types);
  return text("['" + op_types[0] + "', '" + op_types[1] + "' ... '" + op_types.back() + "'] (" +
                 std::to_string(op_types.size()) + " total)");
}

// Upstream's Inspector names a delegated event by its delegate debug id,
// whatever name the trace gives it (etkit's XNNPACK events also carry the
// operator's name, which etinspect shows).
std::string upstream_event_name(const inspector::Event& event) {
  if (event.delegate_debug_id_int) return std::to_string(*event.delegate_debug_id_int);
  if (event.delegate_debug_id_str) return *event.delegate_debug_id_str;
  return event.name;
}

py::object delegate_id_of(const inspector::Event& event) {
  if (event.delegate_debug_id_int) return py::int_(*event.delegate_debug_id_int);
  if (event.delegate_debug_id_str) return text(*event.delegate_debug_id_str);
  return py::none();
}

py::dict stack_traces_of(const inspector::Event& event) {
  py::dict traces;
  for (const auto& [node, trace] : event.stack_traces) traces[text(node)] = text(trace);
  return traces;
}

// {node: {key: (path, type)}}: the shape of an nn_module_stack in
// upstream's deserialized graphs.
py::dict module_hierarchy_of(const inspector::Event& event) {
  py::dict hierarchy;
  for (const auto& [node, stack] : event.module_hierarchy) {
    py::dict frames;
    for (const etrecord::ModuleFrame& frame : stack) frames[text(frame.key)] = py::make_tuple(text(frame.path), text(frame.type));
    hierarchy[text(node)] = frames;
  }
  return hierarchy;
}

// Columns of Python objects written straight into their final numpy
// storage: one 2D object array, a column per row, for the columns a
// dataframe holds as objects. pandas keeps such an array as its one object
// block without copying it; handed separate columns, it copies them into one
// block and touches the reference count of every cell (0.7 of a second for
// a million rows).
class ObjectColumns {
 public:
  ObjectColumns(size_t columns, size_t rows)
      : array_(py::dtype("O"), std::vector<py::ssize_t>{py::ssize_t(columns), py::ssize_t(rows)}),
        slots_(static_cast<PyObject**>(array_.mutable_data())),
        rows_(rows),
        next_(columns, 0),
        filled_with_none_(columns * rows > 0 && slots_[0] != nullptr) {}
  void push(size_t column, py::object item) {
    if (next_.at(column) == rows_) throw std::logic_error("ObjectColumns: more rows than counted");
    PyObject*& slot = slots_[column * rows_ + next_[column]++];
    // numpy either fills a new object array with None or leaves it zeroed
    // (calloc). Zeroed, a slot is written without being read first: a read
    // maps the shared zero page, and the write after it is then a copy-on-write
    // fault with a TLB shootdown to every core running one of our threads (a
    // tenth of a million-row dataframe's time in perf).
    if (filled_with_none_) Py_XDECREF(slot);
    slot = item.release().ptr();  // the array takes our reference
  }
  /// The whole block; every row of every column must have been pushed.
  py::array block() const {
    check_filled();
    return array_;
  }
  /// Column `column` of the block as a 1D view of it.
  py::array column(size_t column) const {
    check_filled();
    return py::array(array_.dtype(), {py::ssize_t(rows_)}, {py::ssize_t(sizeof(PyObject*))},
                     slots_ + column * rows_, array_);
  }

 private:
  py::array array_;
  PyObject** slots_;
  size_t rows_;
  std::vector<size_t> next_;
  bool filled_with_none_;

  void check_filled() const {
    for (size_t filled : next_) {
      if (filled != rows_) throw std::logic_error("ObjectColumns: fewer rows than counted");
    }
  }
};

// One Python string per distinct text (event names repeat across blocks).
py::str interned_text(std::unordered_map<std::string, py::str>& interned, const std::string& value) {
  auto found = interned.find(value);
  if (found == interned.end()) found = interned.emplace(value, text(value)).first;
  return found->second;
}

// upstream_event_name() interned, without copying a name that is the event's own.
py::str name_cell(std::unordered_map<std::string, py::str>& interned, const inspector::Event& event) {
  if (!event.delegate_debug_id_int && !event.delegate_debug_id_str) return interned_text(interned, event.name);
  return interned_text(interned, upstream_event_name(event));
}

// The six statistics' columns, upstream's names with the units appended:
// float arrays, or object columns with upstream's None for the events
// without timings when any has none.
class StatColumns {
 public:
  explicit StatColumns(size_t rows) : rows_(rows) {
    for (size_t s = 0; s < kStats; ++s) {
      values_.emplace_back(py::ssize_t(rows));
      slots_.push_back(values_.back().mutable_data());
    }
  }
  void set(size_t row, const inspector::PerfData* p) {
    if (p == nullptr) {
      all_timed_ = false;
      for (size_t s = 0; s < kStats; ++s) slots_[s][row] = std::nan("");
      return;
    }
    const double values[kStats] = {p->p10, p->p50, p->p90, p->avg, p->min, p->max};
    for (size_t s = 0; s < kStats; ++s) slots_[s][row] = values[s];
  }
  void put(py::dict& out, const std::string& units) const {
    static const char* kNames[kStats] = {"p10", "p50", "p90", "avg", "min", "max"};
    for (size_t s = 0; s < kStats; ++s) {
      const std::string key = std::string(kNames[s]) + units;
      if (all_timed_) {
        out[py::str(key)] = values_[s];
        continue;
      }
      ObjectColumns column(1, rows_);
      for (size_t r = 0; r < rows_; ++r) {
        const double v = slots_[s][r];
        column.push(0, std::isnan(v) ? py::object(py::none()) : py::float_(v));
      }
      out[py::str(key)] = column.column(0);
    }
  }

 private:
  static constexpr size_t kStats = 6;
  size_t rows_;
  std::vector<py::array_t<double>> values_;
  std::vector<double*> slots_;
  bool all_timed_ = true;
};

py::list float_list(const std::vector<double>& values) {
  PyObject* list = PyList_New(py::ssize_t(values.size()));
  if (list == nullptr) throw py::error_already_set();
  for (size_t i = 0; i < values.size(); ++i) PyList_SET_ITEM(list, py::ssize_t(i), PyFloat_FromDouble(values[i]));
  return py::reinterpret_steal<py::list>(list);
}

// The object block's columns: those that stay Python objects in the
// dataframe (the delegate ids may become integers: a column apart).
enum Column { kBlock, kName, kRaw, kOpTypes, kTraces, kHierarchy, kBackend, kDebug, kStart, kCount };
constexpr const char* kColumnNames[kCount] = {"event_block_name",      "event_name", "raw",       "op_types",
                                              "stack_traces",          "module_hierarchy",
                                              "delegate_backend_name", "debug_data", "start_time"};

// An empty cell is the caller's shared empty container when it gave one
// (None: every row its own).
template <typename Make>
py::object own_or_shared(bool empty, const py::object& shared, Make make) {
  return empty && !shared.is_none() ? shared : py::object(make());
}

// The columns in upstream's order; the object columns are views of the block.
py::dict frame_columns(const ObjectColumns& cells, const ObjectColumns& ids, const StatColumns& stats,
                       const py::array_t<bool>& delegated, const py::object& metadata, const std::string& units) {
  py::dict out;
  out["event_block_name"] = cells.column(kBlock);
  out["event_name"] = cells.column(kName);
  out["raw"] = cells.column(kRaw);
  stats.put(out, units);
  out["op_types"] = cells.column(kOpTypes);
  out["delegate_debug_identifier"] = ids.column(0);
  out["stack_traces"] = cells.column(kTraces);
  out["module_hierarchy"] = cells.column(kHierarchy);
  out["is_delegated_op"] = delegated;
  out["delegate_backend_name"] = cells.column(kBackend);
  out["debug_data"] = cells.column(kDebug);
  out["start_time"] = cells.column(kStart);
  out["_delegate_debug_metadatas"] = metadata;
  out["_object_block"] =
      py::make_tuple(cells.block(), py::cast(std::vector<std::string>(kColumnNames, kColumnNames + kCount)));
  return out;
}

class TraceInspector {
 public:
  TraceInspector(const std::string& etdump_path, const std::optional<std::string>& etrecord_path,
                 const std::optional<std::string>& debug_buffer_path, const std::optional<std::string>& program_path,
                 const std::string& source_unit, const std::string& target_unit, bool include_warmup,
                 const std::string& method)
      : method_(method) {
    options_ = unwrap(inspector::parse_time_units(source_unit, target_unit));
    // Where each trace event landed is only needed for debug values and
    // delegate metadata: grouped again with it the first time they are (most
    // traces have neither, and a million events then cost 4 MB and time less).
    options_.locate_events = false;
    options_.include_warmup = include_warmup;
    start_scale_ = inspector::nanoseconds_per(options_.target) / inspector::nanoseconds_per(options_.source);
    trace_ = std::make_unique<etdump::ETDump>(unwrap(etdump::ETDump::load_file(etdump_path)));
    grouped_.emplace(unwrap(inspector::GroupedEvents::build(*trace_, options_)));
    if (etrecord_path) {
      record_.emplace(unwrap(etrecord::Etrecord::load_file(*etrecord_path)));
      for (const std::string& warning : record_->warnings()) warnings_.push_back(*etrecord_path + ": " + warning);
      if (record_->method(method_) == nullptr) {
        std::string names;
        for (const auto& entry : record_->methods()) names += (names.empty() ? "" : ", ") + entry.first;
        throw EtkitError(*etrecord_path + " has no method '" + method_ + "' (it has " + names + ")");
      }
      const inspector::LinkReport fit = inspector::record_fit(*grouped_, *record_, method_);
      if (fit.unmatched > fit.linked) {
        warnings_.push_back(*etrecord_path + " does not seem to belong to this trace: " +
                            std::to_string(fit.unmatched) + " of " + std::to_string(fit.linked + fit.unmatched) +
                            " events have no graph node");
      }
    }
    if (debug_buffer_path) debug_buffer_ = unwrap(FileData::load(*debug_buffer_path));
    if (program_path) {
      const Program program = unwrap(Program::load_file(*program_path));
      const ProgramSummary summary = summarize(program);
      for (const MethodSummary& m : summary.methods) {
        if (m.name == method_) method_summary_ = m;
      }
      if (!method_summary_) throw EtkitError(*program_path + " has no method '" + method_ + "'");
    }
  }

  size_t block_count() const { return grouped_->block_count(); }
  const std::vector<std::string>& warnings() const { return warnings_; }
  bool has_debug_buffer() const { return debug_buffer_ != nullptr; }

  /// Block `index` as (name, bundled_input_index, runs, [event tuples]),
  /// each event (name, raw, start_time, op_types, delegate_debug_identifier,
  /// debug_handles, stack_traces, module_hierarchy, is_delegated_op,
  /// delegate_backend_name, debug_data, instruction_id, delegate metadata).
  py::tuple block(size_t index, py::handle self) {
    if (index >= block_count()) throw py::index_error("event block " + std::to_string(index) + " out of range");
    index_trace_events(true);
    inspector::EventBlock block;
    materialize(index, block);
    py::list events;
    for (size_t e = 0; e < block.events.size(); ++e) {
      const inspector::Event& event = block.events[e];
      py::object raw = py::none(), start = py::none();
      if (event.perf_data) {
        raw = py::cast(event.perf_data->raw);
        start = start_times(event);
      }
      py::object handles = event.debug_handles.empty() ? py::object(py::none()) : py::cast(event.debug_handles);
      py::object backend =
          event.delegate_backend_name.empty() ? py::object(py::none()) : text(event.delegate_backend_name);
      events.append(py::make_tuple(text(upstream_event_name(event)), raw, start, text_list(event.op_types), delegate_id_of(event), handles,
                                   stack_traces_of(event), module_hierarchy_of(event), event.is_delegated_op, backend,
                                   debug_data(index, e, self), event.instruction_id, delegate_metadata(index, e)));
    }
    const py::object bundled = block.bundled_input_index >= 0 ? py::object(py::int_(block.bundled_input_index)) : py::none();
    return py::make_tuple(text(block.name), bundled, block.runs, events);
  }

  /// Upstream's to_dataframe columns over every block, in its order, plus
  /// "_delegate_debug_metadatas" (raw metadata lists, for the caller to
  /// turn into columns; None when the trace has none). `units` is appended
  /// to the statistics' names. Cells are numpy arrays (object arrays for
  /// lists, dicts and strings): pandas then takes them as they are instead
  /// of inferring a type from a million Python lists.
  /// `empty_dict` and `empty_list`, when not None, are the cells of rows
  /// whose stack traces, module hierarchy, op types or debug data are empty
  /// (one shared object each instead of millions of empty containers).
  py::dict columns(const std::string& units, bool with_metadata, py::handle self, py::object empty_dict,
                   py::object empty_list) {
    index_trace_events(with_metadata);
    const BulkArenas arenas;  // a million rows of lists and dicts: see bulk_arenas.h
    size_t rows = 0;
    for (size_t b = 0; b < block_count(); ++b) rows += grouped_->event_count(b);
    ObjectColumns cells(kCount, rows);
    ObjectColumns ids(1, rows);
    ObjectColumns metadata(1, with_metadata && !metadata_.empty() ? rows : 0);
    StatColumns stats(rows);
    py::array_t<bool> delegated{py::ssize_t(rows)};
    bool* delegated_slots = delegated.mutable_data();
    size_t row = 0;
    const bool any_metadata = with_metadata && !metadata_.empty();
    std::unordered_map<std::string, py::str> interned;  // event names repeat across blocks
    inspector::BlockStream blocks(*grouped_, block_context());  // materialized ahead; objects need the GIL
    for (size_t b = 0; b < block_count(); ++b) {
      const inspector::EventBlock& block = blocks.next().block;
      const py::str block_name = text(block.name);
      for (size_t e = 0; e < block.events.size(); ++e) {
        const inspector::Event& event = block.events[e];
        cells.push(kBlock, block_name);
        cells.push(kName, name_cell(interned, event));
        stats.set(row, event.perf_data ? &*event.perf_data : nullptr);
        cells.push(kRaw, event.perf_data ? float_list(event.perf_data->raw) : py::object(py::none()));
        cells.push(kStart, event.perf_data ? start_times(event) : py::object(py::none()));
        cells.push(kOpTypes, own_or_shared(event.op_types.empty(), empty_list, [&] { return op_types_cell(event.op_types); }));
        ids.push(0, delegate_id_of(event));
        cells.push(kTraces, own_or_shared(event.stack_traces.empty(), empty_dict, [&] { return stack_traces_of(event); }));
        cells.push(kHierarchy, own_or_shared(event.module_hierarchy.empty(), empty_dict,
                                             [&] { return module_hierarchy_of(event); }));
        delegated_slots[row] = event.is_delegated_op;
        cells.push(kBackend, event.delegate_backend_name.empty() ? py::object(py::none()) : text(event.delegate_backend_name));
        cells.push(kDebug, own_or_shared(debug_events_.count({b, e}) == 0, empty_list,
                                         [&] { return debug_data(b, e, self); }));
        if (any_metadata) metadata.push(0, delegate_metadata(b, e));
        ++row;
      }
    }
    return frame_columns(cells, ids, stats, delegated, any_metadata ? py::object(metadata.column(0)) : py::none(),
                         units);
  }

  /// The ETRecord's output count of each delegate call of the method
  /// (upstream's Event.num_outputs; other instructions have one).
  std::map<int64_t, int64_t> output_counts() const {
    const etrecord::MethodRecord* method = record_ ? record_->method(method_) : nullptr;
    return method != nullptr ? method->outputs_by_instruction : std::map<int64_t, int64_t>{};
  }

  /// Upstream's find_total_for_module over every block (the library's rule).
  double upstream_module_total(const std::string& name) const {
    std::vector<double> per_block(block_count(), 0.0);
    inspector::for_each_block(*grouped_, block_context(), {}, [&](const inspector::BlockJob& job) {
      per_block[job.index] = inspector::upstream_module_total(job.block, name);
      return true;
    });
    double total = 0;
    for (double block_total : per_block) total += block_total;  // in block order, as one thread would add
    return total;
  }

 private:
  inspector::BlockContext block_context() const {
    return {method_summary_ ? &*method_summary_ : nullptr, record_ ? &*record_ : nullptr, method_};
  }
  void materialize(size_t index, inspector::EventBlock& block) const {
    grouped_->block_into(index, block);
    inspector::annotate_block(block, block_context());
  }

  // Upstream's start_time: the raw timestamps of the runs.
  py::list start_times(const inspector::Event& event) const {
    const double scale = event.is_delegated_op && options_.delegate_source ? 1.0 : start_scale_;
    PyObject* list = PyList_New(py::ssize_t(event.start_times.size()));
    if (list == nullptr) throw py::error_already_set();
    for (size_t i = 0; i < event.start_times.size(); ++i) {
      PyList_SET_ITEM(list, py::ssize_t(i), PyLong_FromLongLong(std::llround(event.start_times[i] * scale)));
    }
    return py::reinterpret_steal<py::list>(list);
  }

  // Debug events (and, when asked, delegate metadata) of each block's
  // events, from one pass over the trace the first time they are needed
  // (grouping keeps only what a statistic needs). Other events are only
  // looked at, not decoded: a million-event trace costs milliseconds here.
  void index_trace_events(bool with_metadata) {
    if (debug_indexed_ && (metadata_indexed_ || !with_metadata)) return;
    const bool debug = !debug_indexed_;
    if (!options_.locate_events) {
      bool needed = with_metadata;
      for (size_t rb = 0; !needed && rb < trace_->block_count(); ++rb) {
        const etdump::RunBlock run = trace_->block(rb);
        for (size_t e = 0; !needed && e < run.event_count(); ++e) needed = run.event_kind(e) == etdump::EventKind::kDebug;
      }
      if (!needed) {  // no debug values in this trace: nothing to index
        debug_indexed_ = true;
        return;
      }
      options_.locate_events = true;
      grouped_.emplace(unwrap(inspector::GroupedEvents::build(*trace_, options_)));
    }
    for (size_t rb = 0; rb < trace_->block_count(); ++rb) {
      const etdump::RunBlock run = trace_->block(rb);
      for (size_t e = 0; e < run.event_count(); ++e) {
        const etdump::EventKind kind = run.event_kind(e);
        if (!(kind == etdump::EventKind::kDebug && debug) && !(kind == etdump::EventKind::kProfile && with_metadata)) {
          continue;
        }
        const std::optional<inspector::EventPlace> place = grouped_->place(rb, e);
        if (!place) continue;
        const etdump::EventView view = run.event(e);
        const std::pair<size_t, size_t> key{place->block, place->event};
        if (view.kind == etdump::EventKind::kDebug && place->run == 0) {
          debug_events_[key].push_back({rb, e});
        } else if (view.kind == etdump::EventKind::kProfile && view.profile.delegate_debug_metadata.size > 0) {
          std::vector<std::string>& list = metadata_[key];
          list.resize(std::max(list.size(), place->run + 1));
          const ByteSpan m = view.profile.delegate_debug_metadata;
          list[place->run].assign(reinterpret_cast<const char*>(m.data), m.size);
        }
      }
    }
    debug_indexed_ = true;
    metadata_indexed_ = metadata_indexed_ || with_metadata;
  }

  // Upstream's debug_data: the values the event's debug events logged in
  // its block's first run; tensors are read-only views of the buffer.
  py::list debug_data(size_t block, size_t event, py::handle self) const {
    py::list out;
    auto found = debug_events_.find({block, event});
    if (found == debug_events_.end()) return out;
    for (const auto& [rb, e] : found->second) {
      const etdump::DebugEventView d = trace_->block(rb).event(e).debug;
      if (d.value_type == "int") out.append(py::int_(d.int_value));
      else if (d.value_type == "bool") out.append(py::bool_(d.bool_value));
      else if (d.value_type == "float" || d.value_type == "double") out.append(py::float_(d.double_value));
      else if (d.value_type == "tensor" || d.value_type == "tensor_list") {
        py::list tensors;
        for (const etdump::DebugTensorView& t : d.tensors) tensors.append(tensor_view(t, self));
        out.append(d.value_type == "tensor" && tensors.size() == 1 ? tensors[0] : py::object(tensors));
      } else {
        out.append(py::none());
      }
    }
    return out;
  }

  py::object tensor_view(const etdump::DebugTensorView& tensor, py::handle self) const {
    if (!debug_buffer_) return py::none();  // upstream: no buffer, no tensor data
    const Tensor view = unwrap(etdump::debug_tensor(tensor, debug_buffer_->bytes()));
    return view_of(view, self);  // the Inspector owns the mapping
  }

  py::object delegate_metadata(size_t block, size_t event) const {
    auto found = metadata_.find({block, event});
    if (found == metadata_.end()) return py::list();
    return text_list(found->second);
  }

  std::string method_;
  inspector::EventBlockOptions options_;
  std::unique_ptr<etdump::ETDump> trace_;
  std::optional<inspector::GroupedEvents> grouped_;
  std::optional<etrecord::Etrecord> record_;
  std::optional<MethodSummary> method_summary_;
  std::shared_ptr<const FileData> debug_buffer_;
  std::vector<std::string> warnings_;
  std::map<std::pair<size_t, size_t>, std::vector<std::pair<size_t, size_t>>> debug_events_;
  std::map<std::pair<size_t, size_t>, std::vector<std::string>> metadata_;
  double start_scale_ = 1;  // raw ticks per target unit (upstream's start_time is raw)
  bool debug_indexed_ = false;
  bool metadata_indexed_ = false;
};

}  // namespace

void register_inspector(py::module_& m) {
  py::class_<TraceInspector>(m, "_Inspector")
      .def(py::init<const std::string&, const std::optional<std::string>&, const std::optional<std::string>&,
                    const std::optional<std::string>&, const std::string&, const std::string&, bool,
                    const std::string&>(),
           py::arg("etdump_path"), py::arg("etrecord_path"), py::arg("debug_buffer_path"), py::arg("program_path"),
           py::arg("source_unit"), py::arg("target_unit"), py::arg("include_warmup"), py::arg("method"))
      .def_property_readonly("block_count", &TraceInspector::block_count)
      .def_property_readonly("warnings", &TraceInspector::warnings)
      .def_property_readonly("has_debug_buffer", &TraceInspector::has_debug_buffer)
      .def("output_counts", &TraceInspector::output_counts)
      .def("block", [](py::object self, size_t index) { return self.cast<TraceInspector&>().block(index, self); })
      .def("upstream_module_total", &TraceInspector::upstream_module_total, py::arg("name"),
           py::call_guard<py::gil_scoped_release>())
      .def(
          "columns",
          [](py::object self, const std::string& units, bool with_metadata, py::object empty_dict,
             py::object empty_list) {
            return self.cast<TraceInspector&>().columns(units, with_metadata, self, empty_dict, empty_list);
          },
          py::arg("units"), py::arg("with_metadata") = false, py::arg("empty_dict") = py::none(),
          py::arg("empty_list") = py::none());
}

}  // namespace etkit::python
