"""etkit.Inspector: upstream's Inspector (executorch.devtools.Inspector) with
its names, defaults and dataframe columns, on etkit's C++ inspector.

Where upstream's behaviour is odd, it is matched and the etkit-native
alternative is named:

- ``find_total_for_module`` counts an event when the name is a *substring*
  of any key of one of its nodes' module stacks (so "layer1" also matches
  "layer10"), as upstream does; ``etinspect modules`` gives exact,
  inclusive totals per module path.
- ``to_dataframe`` shows every event block, "Warmup" runs excepted (etkit's
  traces name warm-up runs; ``include_warmup=True`` keeps them), and the
  ``start_time`` column holds raw timestamps while the statistics are in
  the target unit, as upstream's.
- ``calculate_numeric_gap`` compares against a folder of reference .npy
  files or a second trace (``reference=``), not against intermediate
  outputs re-computed in PyTorch (etkit does not need PyTorch).
"""

import contextlib
import dataclasses
import gc
import os
import sys
import tempfile
import warnings
from enum import Enum
from functools import cached_property
from typing import Any, Callable, Dict, List, Optional, Union

import numpy as np

from . import _etkit
from .numerical_comparator import comparator_for

EXCLUDED_COLUMNS_WHEN_PRINTING = ["raw", "delegate_debug_identifier", "stack_traces", "module_hierarchy", "debug_data"]
EXCLUDED_EVENTS_WHEN_PRINTING = {"OPERATOR_CALL"}
EDGE_DIALECT_GRAPH_KEY = "edge_dialect_graph_module"  # upstream's default reference_graph_name
# Units per second of each time scale, for upstream's source/target factor.
_UNITS_PER_SECOND = {"ns": 1e9, "us": 1e6, "ms": 1e3, "s": 1.0, "cycles": 1.0}


@contextlib.contextmanager
def _without_cyclic_gc():
    """Building millions of containers that hold no cycles: Python's cyclic
    collector would otherwise re-scan them over and over (measured: 6.4 s
    of 6.5 for a million rows)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


class TimeScale(Enum):
    NS = "ns"
    US = "us"
    MS = "ms"
    S = "s"
    CYCLES = "cycles"


def _unit(scale) -> str:
    return scale.value if isinstance(scale, TimeScale) else str(scale)


class PerfData:
    """Durations of an event's runs in the target unit, with upstream's
    statistics (NumPy's linear percentiles)."""

    def __init__(self, raw: List[float]):
        self.raw = raw

    @property
    def p10(self) -> np.float64:
        return np.float64(np.percentile(self.raw, 10))  # numpy's float64 (a float), as upstream's

    @property
    def p50(self) -> np.float64:
        return np.float64(np.percentile(self.raw, 50))  # numpy's float64 (a float), as upstream's

    @property
    def p90(self) -> np.float64:
        return np.float64(np.percentile(self.raw, 90))  # numpy's float64 (a float), as upstream's

    @property
    def avg(self) -> np.float64:
        return np.float64(np.mean(self.raw))

    @property
    def min(self) -> float:
        return min(self.raw)

    @property
    def max(self) -> float:
        return max(self.raw)

    def __repr__(self):
        return f"PerfData(runs={len(self.raw)}, p50={self.p50:.6g})"


@dataclasses.dataclass
class Event:
    """One event of a block over its runs (upstream's fields, in upstream's order)."""

    name: str
    perf_data: Optional[PerfData] = None
    op_types: List[str] = dataclasses.field(default_factory=list)
    delegate_debug_identifier: Optional[Union[int, str]] = None
    debug_handles: Optional[Union[int, List[int]]] = None
    num_outputs: int = 1
    stack_traces: Dict[str, str] = dataclasses.field(default_factory=dict)
    module_hierarchy: Dict[str, Dict] = dataclasses.field(default_factory=dict)
    is_delegated_op: Optional[bool] = None
    delegate_backend_name: Optional[str] = None
    _delegate_debug_metadatas: List[str] = dataclasses.field(default_factory=list)
    debug_data: list = dataclasses.field(default_factory=list)
    _instruction_id: Optional[int] = None
    _delegate_metadata_parser: Optional[Callable] = None
    _delegate_time_scale_converter: Optional[Callable] = None
    _start_time: Optional[List[int]] = None

    @property
    def start_time(self):
        return self._start_time

    @property
    def raw_delegate_debug_metadatas(self) -> List[str]:
        return self._delegate_debug_metadatas

    @property
    def delegate_debug_metadatas(self):
        if not self.is_delegated_op or self._delegate_metadata_parser is None:
            return self._delegate_debug_metadatas
        return self._delegate_metadata_parser(self._delegate_debug_metadatas)

    def asdict(self, _units: str = "") -> dict:
        """This event as one dataframe row: upstream's keys, each list-valued
        cell wrapped in a one-element list (as upstream's)."""
        row = {name: values[0] for name, values in _rows_of_events(None, [self], _units).items()}
        del row["event_block_name"], row["_delegate_debug_metadatas"]
        for key in ("raw", "op_types", "stack_traces", "module_hierarchy", "debug_data", "start_time"):
            row[key] = [row[key]]
        return row

    def to_dataframe(self, _units: str = ""):
        """asdict() as a one-row pandas DataFrame."""
        import pandas as pd

        return pd.DataFrame(self.asdict(_units=_units))


@dataclasses.dataclass
class EventBlock:
    name: str
    events: List[Event] = dataclasses.field(default_factory=list)
    source_time_scale: TimeScale = TimeScale.NS
    target_time_scale: TimeScale = TimeScale.MS
    bundled_input_index: Optional[int] = None
    run_output: Any = None
    reference_output: Any = None

    def to_dataframe(self, include_units: bool = False, include_delegate_debug_data: bool = False):
        """This block's events as rows (upstream's EventBlock.to_dataframe; units off by default)."""
        units = " (" + _unit(self.target_time_scale) + ")" if include_units else ""
        rows = _rows_of_events(self.name, self.events, units)
        return _frame(rows, include_delegate_debug_data, [e._delegate_metadata_parser for e in self.events][:1])


def _refuse_change(self, *args, **kwargs):
    raise TypeError("this empty cell is shared by every row of the dataframe without values; "
                    "change a copy (dict(cell) or list(cell)) instead")


class _SharedEmptyDict(dict):
    """The one empty dict of Inspector.to_dataframe()'s rows without stack
    traces or module hierarchy: a million rows would otherwise hold a million
    empty dicts. A dict equal to {}, as upstream's cell; a change raises
    instead of showing in every row."""

    __setitem__ = __delitem__ = __ior__ = update = setdefault = pop = popitem = clear = _refuse_change


class _SharedEmptyList(list):
    """As _SharedEmptyDict, for empty op_types and debug_data cells."""

    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse_change
    append = extend = insert = remove = pop = clear = sort = reverse = _refuse_change


_EMPTY_DICT = _SharedEmptyDict()
_EMPTY_LIST = _SharedEmptyList()


def _rows_of_events(block_name, events, units):
    columns = {"event_block_name": [], "event_name": [], "raw": []}
    stats = ["p10", "p50", "p90", "avg", "min", "max"]
    for s in stats:
        columns[s + units] = []
    for key in ["op_types", "delegate_debug_identifier", "stack_traces", "module_hierarchy", "is_delegated_op",
                "delegate_backend_name", "debug_data", "start_time", "_delegate_debug_metadatas"]:
        columns[key] = []
    for e in events:
        columns["event_block_name"].append(block_name)
        columns["event_name"].append(e.name)
        columns["raw"].append(e.perf_data.raw if e.perf_data else None)
        for s in stats:
            columns[s + units].append(getattr(e.perf_data, s) if e.perf_data else None)
        ops = e.op_types
        columns["op_types"].append(ops if len(ops) < 5 else f"['{ops[0]}', '{ops[1]}' ... '{ops[-1]}'] ({len(ops)} total)")
        columns["delegate_debug_identifier"].append(e.delegate_debug_identifier)
        columns["stack_traces"].append(e.stack_traces)
        columns["module_hierarchy"].append(e.module_hierarchy)
        columns["is_delegated_op"].append(e.is_delegated_op)
        columns["delegate_backend_name"].append(e.delegate_backend_name)
        columns["debug_data"].append(e.debug_data)
        columns["start_time"].append(e.start_time)
        columns["_delegate_debug_metadatas"].append(e.raw_delegate_debug_metadatas)
    return columns


def _series(name, values):
    """A column as pandas would get it from upstream's per-event frames
    concatenated: cells mixing None with values stay Python objects (pandas
    would make the None NaN and the integers floats), and delegate ids that
    are all integers become an integer column."""
    import pandas as pd

    if isinstance(values, np.ndarray):
        if (name == "delegate_debug_identifier" and values.dtype == object and len(values)
                and values[0] is not None and all(isinstance(v, int) and not isinstance(v, bool) for v in values)):
            return values.astype(np.int64)
        return values
    has_none = any(v is None for v in values)
    if has_none and not all(v is None for v in values):
        return pd.Series(values, dtype=object)
    return values


def _frame(columns, include_delegate_debug_data, parser):
    import pandas as pd

    metadata = columns.pop("_delegate_debug_metadatas")
    block, block_names = columns.pop("_object_block", (None, []))
    columns = {name: _series(name, values) for name, values in columns.items()}
    if block is not None:
        # The native columns that stay objects arrive as one 2D array: pandas
        # keeps it as its object block without copying. Given a dict of object
        # columns instead, it copies them into one block, touching every
        # cell's reference count (0.7 s a million rows).
        frame = pd.DataFrame(block.T, columns=block_names, dtype=object, copy=False)
        for position, (name, values) in enumerate(columns.items()):  # upstream's order
            if name not in block_names:
                frame.insert(position, name, values)
    else:
        frame = pd.DataFrame(columns)
    if include_delegate_debug_data and metadata is not None:
        parse = parser[0] if parser else None
        extra = []
        for delegated, raw_list in zip(columns["is_delegated_op"], metadata):
            if raw_list:
                parsed = parse(raw_list) if (parse is not None and delegated) else raw_list
                if isinstance(parsed, list):
                    extra.append(pd.Series([parsed], index=["delegate_debug_metadata"], dtype=object))
                elif isinstance(parsed, dict):
                    extra.append(pd.Series(parsed))
                else:
                    raise ValueError(f"Unexpected type for delegate_debug_metadata: {type(parsed)}")
            else:
                extra.append(pd.Series(dtype=object))
        if any(not s.empty for s in extra):
            frame = pd.concat([frame, pd.DataFrame(extra)], axis=1)
    return frame


class Inspector:
    """Event blocks of an ETDump, linked to an ETRecord when one is given.

    Arguments are upstream's; etkit adds ``program`` (a .pte/.bpte naming
    delegate backends without an ETRecord), ``method`` (the ETRecord's
    method, default "forward") and ``include_warmup``.
    """

    def __init__(
        self,
        etdump_path: Optional[str] = None,
        etdump_data: Optional[bytes] = None,
        etrecord: Optional[Any] = None,
        source_time_scale: TimeScale = TimeScale.NS,
        target_time_scale: TimeScale = TimeScale.MS,
        debug_buffer_path: Optional[str] = None,
        delegate_metadata_parser: Optional[Callable[[List[str]], Any]] = None,
        delegate_time_scale_converter: Optional[Callable[[Union[int, str], Union[int, float]], Union[int, float]]] = None,
        enable_module_hierarchy: bool = False,
        reference_graph_name: str = EDGE_DIALECT_GRAPH_KEY,
        *,
        program: Optional[str] = None,
        method: str = "forward",
        include_warmup: bool = False,
    ):
        if (etdump_path is None) == (etdump_data is None):
            raise ValueError("Expecting exactly one of etdump_path or etdump_data to be specified.")
        if reference_graph_name != EDGE_DIALECT_GRAPH_KEY:
            raise NotImplementedError(
                f"reference_graph_name={reference_graph_name!r}: etkit links events through the ETRecord's edge "
                f"dialect program ({EDGE_DIALECT_GRAPH_KEY!r}); other graphs are PyTorch objects it does not load")
        self._source_time_scale = TimeScale(_unit(source_time_scale))
        self._target_time_scale = TimeScale(_unit(target_time_scale))
        self._delegate_metadata_parser = delegate_metadata_parser
        self._delegate_time_scale_converter = delegate_time_scale_converter
        # Upstream's flag shapes its internal operator graph, which etkit does
        # not build: events carry their module hierarchy either way.
        self._enable_module_hierarchy = enable_module_hierarchy
        self._etdump_path: str = "" if etdump_path is None else os.fspath(etdump_path)
        self._scratch: List[Any] = []  # NamedTemporaryFile objects, removed on close
        if etdump_data is not None:
            # The reader maps files: in-memory data goes through one.
            self._etdump_path = self._scratch_file(".etdp", lambda f: f.write(etdump_data))
        if debug_buffer_path is None:
            warnings.warn("Output Buffer not found. Tensor Debug Data will not be available.", stacklevel=2)
        self._etrecord_path = self._etrecord_file(etrecord)
        self._debug_buffer_path = None if debug_buffer_path is None else os.fspath(debug_buffer_path)
        self._program = None if program is None else os.fspath(program)
        self._method = method
        self._open: Optional[_etkit._Inspector] = _etkit._Inspector(
            self._etdump_path, self._etrecord_path, self._debug_buffer_path, self._program,
            self._source_time_scale.value, self._target_time_scale.value, include_warmup, method)
        self._output_counts = self._native.output_counts()
        for warning in self._native.warnings:
            warnings.warn(warning, stacklevel=2)

    @property
    def _native(self):
        if self._open is None:
            raise ValueError("the Inspector is closed")
        return self._open

    def close(self) -> None:
        """Lets the trace, record and debug buffer go and removes scratch
        files (in-memory ETDump data, a saved ETRecord object). Event blocks
        and dataframes made before stay valid."""
        self._open = None
        for scratch in self._scratch:
            scratch.close()
        self._scratch = []

    def __enter__(self) -> "Inspector":
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def _scratch_file(self, suffix, write):
        scratch = tempfile.NamedTemporaryFile(prefix="etkit-", suffix=suffix)
        write(scratch)
        scratch.flush()
        self._scratch.append(scratch)  # removed when the Inspector goes
        return scratch.name

    def _etrecord_file(self, etrecord):
        """A path for the ETRecord: upstream's ETRecord object is saved to a
        scratch file (its save() writes the same archive etkit reads)."""
        if etrecord is None or isinstance(etrecord, (str, os.PathLike)):
            return None if etrecord is None else os.fspath(etrecord)
        if callable(getattr(etrecord, "save", None)):
            return self._scratch_file(".etrecord", lambda f: etrecord.save(f.name))
        raise TypeError(f"etrecord: expected a path or upstream's ETRecord object, got {type(etrecord).__name__}")

    @cached_property
    def event_blocks(self) -> List[EventBlock]:
        with _without_cyclic_gc():
            return self._build_event_blocks()

    def _build_event_blocks(self) -> List[EventBlock]:
        blocks = []
        for index in range(self._native.block_count):
            name, bundled, _runs, events = self._native.block(index)
            block = EventBlock(name=name, source_time_scale=self._source_time_scale,
                               target_time_scale=self._target_time_scale, bundled_input_index=bundled)
            for (ename, raw, start, op_types, delegate_id, handles, traces, hierarchy, delegated, backend, debug,
                 instruction, metadata) in events:
                if delegated and raw is not None:
                    raw = self._delegate_raw(ename, raw, start)
                block.events.append(Event(
                    name=ename, perf_data=PerfData(raw) if raw is not None else None, op_types=op_types,
                    delegate_debug_identifier=delegate_id, debug_handles=handles,
                    num_outputs=self._output_counts.get(instruction, 1), stack_traces=traces,
                    module_hierarchy=hierarchy, is_delegated_op=delegated, delegate_backend_name=backend,
                    debug_data=debug, _instruction_id=instruction if instruction >= 0 else None, _start_time=start,
                    _delegate_debug_metadatas=metadata, _delegate_metadata_parser=self._delegate_metadata_parser,
                    _delegate_time_scale_converter=self._delegate_time_scale_converter))
            blocks.append(block)
        return blocks

    def _delegate_raw(self, name, raw, start_times):
        """A delegated event's durations through delegate_time_scale_converter
        when one is given, as upstream: converter(name, end) - converter(name,
        start) per run. The trace's raw start and the duration in source units
        give the end (the default conversion, source / target, is exact to the
        tick for integer clocks)."""
        convert = self._delegate_time_scale_converter
        if convert is None:
            return raw
        factor = (_UNITS_PER_SECOND[self._source_time_scale.value]
                  / _UNITS_PER_SECOND[self._target_time_scale.value])
        converted = []
        for duration, start in zip(raw, start_times):
            end = start + round(duration * factor)
            converted.append(convert(name, end) - convert(name, start))
        return converted

    def to_dataframe(self, include_units: bool = True, include_delegate_debug_data: bool = False):
        """Every event of every block as a row, upstream's columns in upstream's order."""
        units = " (" + self._target_time_scale.value + ")" if include_units else ""
        if self._delegate_time_scale_converter is not None:
            # Converted durations are per event in Python: the blocks' path.
            return self._frame_of_blocks(units, include_delegate_debug_data)
        with _without_cyclic_gc():
            columns = self._native.columns(units, include_delegate_debug_data, _EMPTY_DICT, _EMPTY_LIST)
            return _frame(columns, include_delegate_debug_data, [self._delegate_metadata_parser])

    def _frame_of_blocks(self, units, include_delegate_debug_data):
        columns = None
        for block in self.event_blocks:
            rows = _rows_of_events(block.name, block.events, units)
            if columns is None:
                columns = rows
            else:
                for name, values in rows.items():
                    columns[name].extend(values)
        columns = columns or _rows_of_events(None, [], units)
        return _frame(columns, include_delegate_debug_data, [self._delegate_metadata_parser])

    def _prepare_dataframe(self, include_units=True, include_delegate_debug_data=False):
        frame = self.to_dataframe(include_units, include_delegate_debug_data)
        frame = frame.drop(columns=EXCLUDED_COLUMNS_WHEN_PRINTING)
        for name in EXCLUDED_EVENTS_WHEN_PRINTING:
            frame = frame[~frame["event_name"].str.contains(name)]
        return frame.reset_index(drop=True)

    def print_data_tabular(self, file=sys.stdout, include_units: bool = True,
                           include_delegate_debug_data: bool = False) -> None:
        """The events as a table: displayed in a notebook, printed elsewhere."""
        frame = self._prepare_dataframe(include_units, include_delegate_debug_data)
        try:
            from IPython import get_ipython
            from IPython.display import display

            if get_ipython() is not None:
                display(frame)
                return
        except ImportError:
            pass
        try:
            from tabulate import tabulate

            print(tabulate(frame, headers="keys", tablefmt="fancy_grid"), file=file)
        except ImportError:  # tabulate is optional: pandas' own layout then
            print(frame.to_string(), file=file)

    def save_data_to_tsv(self, file, include_units: bool = True, include_delegate_debug_data: bool = False) -> None:
        """The printed table as TSV (a path or an open file)."""
        self._prepare_dataframe(include_units, include_delegate_debug_data).to_csv(file, sep="\t")

    def find_total_for_module(self, module_name: str) -> float:
        """Sum of the average times of the events whose graph nodes' module
        stack has a key containing ``module_name`` (upstream's rule, a
        substring match; OPERATOR_CALL events are skipped). The rule is the
        library's (``inspector::upstream_module_total``); ``etinspect
        modules`` gives exact totals."""
        return self._native.upstream_module_total(module_name)

    def get_op_list(self, event_block: str, show_delegated_ops: Optional[bool] = True) -> Dict[str, List[Event]]:
        """The events of the block named ``event_block`` by op type (an event
        linked to several graph nodes is listed under each of their ops).
        Upstream's method returns an empty dict (its body is a to-do); this is
        what its docstring promises. Delegated ops are left out when
        ``show_delegated_ops`` is false; events with no op type (OPERATOR_CALL,
        Method::execute) are not ops."""
        ops: Dict[str, List[Event]] = {}
        for block in self.event_blocks:
            if block.name != event_block:
                continue
            for event in block.events:
                if event.is_delegated_op and not show_delegated_ops:
                    continue
                for op_type in dict.fromkeys(event.op_types):
                    ops.setdefault(op_type, []).append(event)
        return ops

    def get_exported_program(self, graph: Optional[str] = None):
        """Upstream returns the ETRecord's PyTorch ExportedProgram: etkit reads
        ETRecords without PyTorch and has none to return."""
        raise NotImplementedError(
            "get_exported_program returns a PyTorch ExportedProgram: etkit reads ETRecords without PyTorch "
            "(load the ETRecord with executorch.devtools.parse_etrecord for the graph itself)")

    def write_tensorboard_artifact(self, path: str) -> None:
        """Upstream's is an empty method (a to-do): etkit says so instead of
        writing nothing."""
        raise NotImplementedError("write_tensorboard_artifact: upstream's Inspector does not implement it either "
                                  "(etinspect trace writes a Chrome/Perfetto trace)")

    def get_vgf_neural_statistics(self) -> List[Dict[str, Any]]:
        """Statistics of the Arm VGF backend's delegate metadata: not read by etkit."""
        raise NotImplementedError("get_vgf_neural_statistics: etkit does not parse the Arm VGF backend's metadata")

    def calculate_numeric_gap(self, distance="MSE", disable_debug_handle_valdiation: bool = False,
                              reference_graph: Optional[str] = None, *, reference: Optional[str] = None,
                              reference_debug_buffer: Optional[str] = None):
        """The gap between this trace's intermediate outputs and a reference:
        a folder of .npy files named by debug handle (the sample exporter's
        --references) or a second trace with its debug buffer. Rows are
        upstream's: aot_debug_handle, aot_ops, aot_intermediate_output,
        runtime_ops, runtime_debug_handle, runtime_intermediate_output, gap,
        stacktraces (the innermost user source line per op)."""
        import pandas as pd

        del disable_debug_handle_valdiation, reference_graph  # upstream's PyTorch-graph options
        if reference is None:
            raise _etkit.Error("calculate_numeric_gap needs reference=: a folder of .npy references or a trace")
        if self._debug_buffer_path is None:
            raise _etkit.Error("calculate_numeric_gap needs the Inspector's debug_buffer_path (the logged values)")
        if not os.path.isdir(reference) and reference_debug_buffer is None:
            raise _etkit.Error(f"reference {os.fspath(reference)} is not a folder: as a trace it needs "
                               "reference_debug_buffer")
        comparator = comparator_for(distance, self)
        rows, gap_warnings = _etkit._gap_rows(
            self._etdump_path, self._debug_buffer_path, os.fspath(reference),
            None if reference_debug_buffer is None else os.fspath(reference_debug_buffer), self._etrecord_path,
            self._program, self._method)
        for warning in gap_warnings:
            warnings.warn(warning, stacklevel=2)
        pairs = [(row["handles"], row["reference"], row["handles"], row["runtime"]) for row in rows]
        preprocess = getattr(comparator, "preprocessing", None)
        if preprocess is not None:
            pairs = list(preprocess(pairs))
        compare = getattr(comparator, "compare_pairs", None)
        gaps = compare(pairs) if compare else [[float(comparator.element_compare(a, b))] for _, a, _, b in pairs]
        records = []
        for row, (aot_handle, aot, runtime_handle, runtime), gap in zip(rows, pairs, gaps):
            ops = [row["node"] or row["op"]]
            records.append({
                "aot_debug_handle": aot_handle,
                "aot_ops": ops,
                "aot_intermediate_output": aot,
                "runtime_ops": ops,
                "runtime_debug_handle": runtime_handle,
                "runtime_intermediate_output": runtime,
                "gap": gap,
                "stacktraces": {ops[0]: row["source"] or None},
            })
        return pd.DataFrame(records)


def compare_results(reference_output, run_output, metrics: Optional[List[str]] = None,
                    plot: bool = False) -> Dict[str, List[float]]:
    """Upstream's compare_results on numpy arrays: for each pair of outputs,
    "snr", "mse" and "cosine_similarity" (those named in ``metrics``, all by
    default) computed in float32 and rounded to two decimals, None for a pair
    that is not two arrays; each metric's list is printed, as upstream's."""
    if plot:
        raise NotImplementedError("compare_results(plot=True) draws with matplotlib, which etkit does not use")
    functions = {"snr": _snr, "mse": _mse, "cosine_similarity": _cosine_similarity}
    results = {}
    for name, function in functions.items():
        if metrics is not None and name not in metrics:
            continue
        values = []
        for reference, actual in zip(reference_output, run_output):
            if isinstance(reference, np.ndarray) and isinstance(actual, np.ndarray):
                values.append(function(reference.astype(np.float32), actual.astype(np.float32)))
            else:
                values.append(None)
        results[name] = values
        print(name)
        print("-" * 20)
        for index, value in enumerate(values):
            print(f"{index:<5}{value:>8.5f}" if value is not None else f"{index:<5}{'None':>8}")
        print("\n")
    return results


def _mse(reference, actual):
    return round(float(np.mean(np.square(reference - actual, dtype=np.float32), dtype=np.float32)), 2)


def _snr(reference, actual):
    noise = reference - actual
    signal_power = np.mean(np.square(reference, dtype=np.float32), dtype=np.float32)
    noise_power = np.mean(np.square(noise, dtype=np.float32), dtype=np.float32)
    with np.errstate(divide="ignore", invalid="ignore"):
        return round(float(np.float32(10) * np.log10(signal_power / noise_power)), 2)


def _cosine_similarity(reference, actual):
    if reference.shape != actual.shape:
        raise ValueError("Input tensors must have the same shape")
    dot = np.sum(reference * actual, dtype=np.float32)
    norms = np.sqrt(np.sum(np.square(reference), dtype=np.float32)) * np.sqrt(np.sum(np.square(actual), dtype=np.float32))
    with np.errstate(divide="ignore", invalid="ignore"):
        return round(float(dot / norms), 2)
