"""bfloat16 without ml_dtypes: numpy has no bfloat16. Method.run gives
bfloat16 outputs as float32 values; raw bits (``bfloat16="bits"``, and the
Inspector's debug data) are uint16 arrays whose dtype carries
``{"etkit_dtype": "bfloat16"}`` as metadata; a bfloat16 input takes float
values or such bits. float16 is numpy's own float16."""

import numpy as np

# numpy's stubs omit dtype's metadata argument, which numpy has had since 1.7.
_BFLOAT16 = np.dtype("uint16", metadata={"etkit_dtype": "bfloat16"})  # type: ignore[call-overload]


def is_bfloat16(array) -> bool:
    """Whether ``array`` holds bfloat16 bits as etkit returns them."""
    metadata = np.asarray(array).dtype.metadata
    return metadata is not None and metadata.get("etkit_dtype") == "bfloat16"


def bfloat16_to_float32(bits) -> np.ndarray:
    """The float32 values of bfloat16 bits (exact: bfloat16 is float32's top half)."""
    bits = np.asarray(bits)
    if bits.dtype.kind != "u" or bits.dtype.itemsize != 2:
        raise TypeError(f"bfloat16 bits are uint16, not {bits.dtype}")
    return (bits.astype(np.uint32) << 16).view(np.float32)


def float32_to_bfloat16(values) -> np.ndarray:
    """bfloat16 bits of float32 values, rounded to nearest even (as PyTorch
    converts); NaN stays NaN."""
    values = np.ascontiguousarray(values, dtype=np.float32)
    bits = values.view(np.uint32)
    rounded = (bits + (np.uint32(0x7FFF) + ((bits >> 16) & 1))) >> 16
    rounded = np.where(np.isnan(values), (bits >> 16) | 0x40, rounded)
    return rounded.astype(np.uint16).view(_BFLOAT16)
