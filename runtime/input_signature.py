"""Calls of a function with an `input_signature`: checking the signature and the arguments.

API.md section 1: inputs are converted to the TensorSpecs; anything else is refused
with TypeError (a non-tensor, a bool for a number) or ValueError (a shape or
structure that does not fit), naming the parameter.
"""
from __future__ import annotations

import inspect

import numpy as np

from autograph.tracer.core import nest
from autograph.tracer.core.convert import to_numpy
from autograph.tracer.core.types import as_dtype

from .retracing import spec_fits
from .signature import bind_arguments, is_tensor_leaf
from .spec import TensorSpec

__all__ = ["check_arguments", "validate_input_signature"]

def validate_input_signature(sig, fn_sig: inspect.Signature, name: str):
    if not isinstance(sig, (list, tuple)):
        raise TypeError(f"input_signature must be a list or tuple of ag.TensorSpec, got {type(sig).__name__}")
    leaves, _ = nest.flatten(tuple(sig))
    bad = [x for x in leaves if not isinstance(x, TensorSpec)]
    if bad:
        raise TypeError(f"input_signature must be a possibly nested sequence of ag.TensorSpec; got "
                        f"{', '.join(repr(b) for b in bad)}; Python values cannot be part of an input_signature")
    params = list(fn_sig.parameters.values())
    if any(p.kind == p.VAR_KEYWORD for p in params):
        raise TypeError(f"{name}: functions with **kwargs cannot have an input_signature")
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    required = [p for p in positional if p.default is p.empty]
    has_varargs = any(p.kind == p.VAR_POSITIONAL for p in params)
    if len(sig) < len(required) or (len(sig) > len(positional) and not has_varargs):
        raise TypeError(f"{name}: input_signature has {len(sig)} TensorSpec(s) but the function takes "
                        f"{len(positional)} positional argument(s) ({', '.join(p.name for p in positional)})")


def check_arguments(name: str, fn_sig: inspect.Signature, sig: tuple, args, kwargs):
    """The bound argument values and the arrays of a call of a function with input_signature `sig`.

    Raises TypeError or ValueError (naming the parameter) when the arguments do not
    fit the TensorSpecs; an array is None where a TensorSpec was given.
    """
    bound = bind_arguments(fn_sig, args, kwargs, name)
    values = tuple(bound.arguments.values())
    _refuse_unsigned(name, fn_sig, bound, args, kwargs, len(sig))
    names = list(bound.arguments)[:len(sig)]
    positional = values[:len(sig)] if len(values) >= len(sig) else values

    def fail(kind, detail: str):
        # The inputs and the signature, then which parameter and what it was given.
        raise kind(f"{_incompatible_message(values, sig)}\n  {name}: {detail}") from None

    arrays = []
    for pname, value, spec_tree in zip(names, positional, sig):
        try:
            leaves, treedef = nest.flatten(value)
            spec_leaves, spec_def = nest.flatten(spec_tree)
        except (TypeError, ValueError):
            fail(ValueError, f"argument '{pname}' does not have the structure of {spec_tree!r}")
        if (treedef != spec_def and not all(isinstance(v, TensorSpec) for v in leaves)) \
                or len(leaves) != len(spec_leaves):
            fail(ValueError, f"argument '{pname}' expected {spec_tree!r}, got {_short(value)}")
        for k, (leaf, spec) in enumerate(zip(leaves, spec_leaves)):
            where = f"argument '{pname}'" + (f" (leaf {k})" if len(spec_leaves) > 1 else "")
            given = f"{where} expected {spec!r}, got {_short(leaf)}"
            if isinstance(leaf, TensorSpec):
                if not (leaf.dtype is spec.dtype and spec_fits(leaf.shape, spec.shape)):
                    fail(ValueError, given)
                arrays.append(None)
                continue
            if not is_tensor_leaf(leaf) and type(leaf) not in (int, float, bool, complex):
                # API.md section 1: a non-tensor argument is refused with TypeError.
                fail(TypeError, f"{given}; a function with an input_signature takes tensors, "
                                f"arrays or numbers for its TensorSpecs")
            if type(leaf) is bool and not spec.dtype.is_bool:
                # A flag passed where a number tensor is expected is not silently 1 or 0.
                fail(TypeError, f"{given}; a Python bool is not converted to {spec.dtype.name}")
            try:
                arr = to_numpy(leaf, spec.dtype) if not is_tensor_leaf(leaf) else to_numpy(leaf)
            except (TypeError, ValueError):
                arr = None
            if arr is None or not spec.is_compatible_with(arr):
                fail(ValueError, given)
            # (np.ascontiguousarray would turn a 0-d array into shape (1,))
            arrays.append(arr if arr.flags.c_contiguous else np.ascontiguousarray(arr))
    if len(positional) != len(sig):
        fail(ValueError, f"expected {len(sig)} arguments for the input_signature, got "
                         f"{len(positional)}")
    return values, arrays

def _short(v) -> str:
    """What was given, briefly: a tensor's dtype and shape, else the repr."""
    if is_tensor_leaf(v) and not isinstance(v, TensorSpec):
        dt = as_dtype(v.dtype).name
        return f"{'an' if dt[0] in 'aeiou' else 'a'} {dt} tensor of shape {tuple(v.shape)}"
    text = repr(v)
    return f"{type(v).__name__} {text if len(text) <= 80 else text[:77] + '...'}"


def _refuse_unsigned(name, fn_sig, bound, args, kwargs, n_specs):
    """TypeError when the call passes a parameter the input_signature does not
    cover with a value other than its default: the one trace was made with the
    default baked in, so another value would be silently ignored."""
    params = list(fn_sig.parameters.values())
    if any(p.kind == p.VAR_POSITIONAL for p in params):
        return
    passed = {p.name for p in params[:len(args)]} | set(kwargs)
    for p in params[n_specs:]:
        if p.name not in passed or p.kind == p.VAR_KEYWORD:
            continue
        value = bound.arguments[p.name]
        if value is p.default or (type(value) is type(p.default) and _same(value, p.default)):
            continue
        raise TypeError(f"{name}: the input_signature covers {n_specs} parameter(s), not "
                        f"'{p.name}', which keeps its default {p.default!r} in the one compiled "
                        f"trace; got {_short(value)}. Add a TensorSpec for '{p.name}' or drop "
                        f"the input_signature (Python values then retrace)")


def _same(a, b) -> bool:
    try:
        return bool(a == b)
    except Exception:
        return False


def _incompatible_message(values, sig) -> str:
    def fmt(v):
        return "\n".join("    " + line for line in repr(v).splitlines())
    inputs = ",\n".join(fmt(v) for v in values)
    specs = ",\n".join(fmt(s) for s in sig)
    return (f"Python inputs incompatible with input_signature:\n  inputs: (\n{inputs})\n"
            f"  input_signature: (\n{specs})")
