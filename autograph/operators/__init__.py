"""The operators that converted code calls as `ag__.<name>`.

This module object *is* `ag__` inside converted functions.
"""
from .asserts import assert_stmt
from .calls import converted_call
from .composites import NOT_STATE, ld_composite, store_composite
from .control_flow import for_stmt, if_exp, if_stmt, while_stmt
from .exceptions import caught
from .lists import list_append, list_pop
from .write_notes import note_write
from .logical import and_, compare_chain, in_, not_, not_in, or_
from .py_builtins import RangeMarker, len_, range_, slice_
from .slices import (aug_set_item, aug_set_item_chain, aug_value, set_item, set_item_captured,
                     set_item_chain)
from .variables import Undefined, UndefinedReturnValue, ld, retval
from .inplace import method_inplace, numpy_inplace
from .array_reads import get_item

__all__ = [
    "converted_call", "if_stmt", "if_exp", "while_stmt", "for_stmt", "and_", "or_",
    "not_", "compare_chain", "range_", "len_", "slice_", "RangeMarker", "set_item",
    "aug_set_item", "aug_value", "set_item_captured", "set_item_chain", "aug_set_item_chain",
    "Undefined", "UndefinedReturnValue", "ld", "retval",
    "ld_composite", "store_composite", "NOT_STATE", "assert_stmt", "caught", "in_", "not_in",
    "list_append", "list_pop", "note_write", "numpy_inplace", "method_inplace", "get_item",
]

from . import advice as _advice
_advice.install()
