"""etkit's sample exporter: PyTorch module -> .pte, .bpte, ETRecord, reference .npy.

Uses only Debian's python3-torch 1.13 (make_fx), python3-numpy and the flatc
compiler with etkit's own schemas. The stages are one module each:
capture (trace + source metadata), edge_ops (ATen -> edge out-variant
kernels), memory_plan, program (flatbuffer JSON + eh00 segments), bundle,
etrecord, references.
"""
