"""Tracing: running Python on symbolic tensors to record a typed graph, with
structured control flow (`cond`, `while_loop`) and `TensorArray`.
"""
