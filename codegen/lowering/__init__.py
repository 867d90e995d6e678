"""Lowering a typed graph to one LLVM function: the driver, and one module per
op family (the same family names as `autograph.tracer.ops`).
"""
