"""Distances for Inspector.calculate_numeric_gap, with upstream's names and
definitions (devtools/inspector/numerical_comparator): MSE is the mean
squared difference, L1 the sum of absolute differences, SNR
10·log10(power of the reference / power of the difference) in dB. They are
computed by etkit's inspector library (the one definition `etinspect gap`
uses), on float64 values with numpy's arithmetic: a NaN, or inf - inf,
makes the distance NaN, as in upstream.

A custom comparator subclasses NumericalComparatorBase and implements
``element_compare(a, b) -> float``; it may override ``preprocessing(pairs)``
to transform the values first (dequantize, change layout). Unlike
upstream, whose mapping is a dict keyed by (debug handle, tensor) — numpy
arrays cannot be dict keys — ``pairs`` is a list of
``(aot_debug_handle, aot_output, runtime_debug_handle, runtime_output)``
tuples, and preprocessing returns a list of the same shape."""

from abc import ABC, abstractmethod

from . import _etkit


class NumericalComparatorBase(ABC):
    def __init__(self, inspector=None):
        self.inspector = inspector

    def preprocessing(self, pairs):
        """Transforms the pairs before comparison; the default keeps them."""
        return pairs

    @abstractmethod
    def element_compare(self, a, b) -> float:
        """A scalar distance between the reference ``a`` and the runtime value ``b``."""

    def compare_pairs(self, pairs):
        """The gap of each pair, as a list (upstream's ``gap`` cells)."""
        return [[float(self.element_compare(a, b))] for _, a, _, b in pairs]


def distances(reference, actual):
    """All of etkit's distances between two values of one shape:
    ``{"mse", "l1", "snr_db", "cosine", "max_abs"}``."""
    return _etkit._compare(reference, actual)


class MSEComparator(NumericalComparatorBase):
    def element_compare(self, a, b) -> float:
        return distances(a, b)["mse"]


class L1Comparator(NumericalComparatorBase):
    def element_compare(self, a, b) -> float:
        return distances(a, b)["l1"]


class SNRComparator(NumericalComparatorBase):
    def element_compare(self, a, b) -> float:
        return distances(a, b)["snr_db"]


def comparator_for(distance, inspector):
    """A comparator from upstream's names ("MSE", "L1", "SNR") or an object."""
    if isinstance(distance, NumericalComparatorBase):
        if distance.inspector is None:
            distance.inspector = inspector
        return distance
    if isinstance(distance, str):
        metric = distance.strip().upper()
        known = {"MSE": MSEComparator, "L1": L1Comparator, "SNR": SNRComparator}
        if metric in known:
            return known[metric](inspector=inspector)
    if hasattr(distance, "element_compare"):  # duck-typed comparators are welcome too
        return distance
    raise ValueError(f"Unsupported distance metric {distance!r}")
