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
    def p10(self) -> float:
        return np.percentile(self.raw, 10)

    @property
    def p50(self) -> float:
        return np.percentile(self.raw, 50)

    @property
    def p90(self) -> float:
        return np.percentile(self.raw, 90)

    @property
    def avg(self) -> float:
        return np.mean(self.raw)

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
    name: str
    perf_data: Optional[PerfData] = None
    op_types: List[str] = dataclasses.field(default_factory=list)
    delegate_debug_identifier: Optional[Union[int, str]] = None
    debug_handles: Optional[List[int]] = None
    stack_traces: Dict[str, str] = dataclasses.field(default_factory=dict)
    module_hierarchy: Dict[str, Dict] = dataclasses.field(default_factory=dict)
    is_delegated_op: Optional[bool] = None
    delegate_backend_name: Optional[str] = None
    debug_data: list = dataclasses.field(default_factory=list)
    _instruction_id: Optional[int] = None
    _start_time: Optional[List[int]] = None
    _delegate_debug_metadatas: List[str] = dataclasses.field(default_factory=list)
    _delegate_metadata_parser: Optional[Callable] = None

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
        etrecord: Optional[str] = None,
        source_time_scale: TimeScale = TimeScale.NS,
        target_time_scale: TimeScale = TimeScale.MS,
        debug_buffer_path: Optional[str] = None,
        delegate_metadata_parser: Optional[Callable[[List[str]], Any]] = None,
        enable_module_hierarchy: bool = False,
        *,
        program: Optional[str] = None,
        method: str = "forward",
        include_warmup: bool = False,
    ):
        if (etdump_path is None) == (etdump_data is None):
            raise ValueError("Expecting exactly one of etdump_path or etdump_data to be specified.")
        if etrecord is not None and not isinstance(etrecord, (str, os.PathLike)):
            raise TypeError("Unsupported ETRecord type: etkit reads ETRecord files (pass the path)")
        self._source_time_scale = TimeScale(_unit(source_time_scale))
        self._target_time_scale = TimeScale(_unit(target_time_scale))
        self._delegate_metadata_parser = delegate_metadata_parser
        self._enable_module_hierarchy = enable_module_hierarchy
        self._etdump_path = etdump_path
        self._scratch = None
        if etdump_data is not None:
            # The reader maps files: in-memory data goes through one.
            self._scratch = tempfile.NamedTemporaryFile(prefix="etkit-", suffix=".etdp")
            self._scratch.write(etdump_data)
            self._scratch.flush()
            self._etdump_path = self._scratch.name
        if debug_buffer_path is None:
            warnings.warn("Output Buffer not found. Tensor Debug Data will not be available.", stacklevel=2)
        self._etrecord_path = None if etrecord is None else os.fspath(etrecord)
        self._debug_buffer_path = None if debug_buffer_path is None else os.fspath(debug_buffer_path)
        self._program = None if program is None else os.fspath(program)
        self._method = method
        self._native = _etkit._Inspector(
            os.fspath(self._etdump_path), self._etrecord_path, self._debug_buffer_path, self._program,
            self._source_time_scale.value, self._target_time_scale.value, include_warmup, method)
        for warning in self._native.warnings:
            warnings.warn(warning, stacklevel=2)

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
                block.events.append(Event(
                    name=ename, perf_data=PerfData(raw) if raw is not None else None, op_types=op_types,
                    delegate_debug_identifier=delegate_id, debug_handles=handles, stack_traces=traces,
                    module_hierarchy=hierarchy, is_delegated_op=delegated, delegate_backend_name=backend,
                    debug_data=debug, _instruction_id=instruction if instruction >= 0 else None, _start_time=start,
                    _delegate_debug_metadatas=metadata, _delegate_metadata_parser=self._delegate_metadata_parser))
            blocks.append(block)
        return blocks

    def to_dataframe(self, include_units: bool = True, include_delegate_debug_data: bool = False):
        """Every event of every block as a row, upstream's columns in upstream's order."""
        units = " (" + self._target_time_scale.value + ")" if include_units else ""
        with _without_cyclic_gc():
            columns = self._native.columns(units, include_delegate_debug_data)
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

    def calculate_numeric_gap(self, distance="MSE", reference: Optional[str] = None,
                              reference_debug_buffer: Optional[str] = None,
                              disable_debug_handle_valdiation: bool = False, reference_graph: Optional[str] = None):
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
        comparator = comparator_for(distance, self)
        rows, gap_warnings = _etkit._gap_rows(
            os.fspath(self._etdump_path), self._debug_buffer_path, os.fspath(reference),
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
