"""Fresh identifiers for generated code that never clash with the user's names."""
from __future__ import annotations

from typing import Set

import gast

__all__ = ["Namer"]


class Namer:
    """Hands out names like `get_state`, `get_state_1`, ... unused by the function.

    Every identifier appearing anywhere in the function (locals, globals it
    reads, parameters, nested defs) is reserved, so a generated local never
    shadows a global the user reads.
    """

    def __init__(self, tree: gast.AST):
        self.taken: Set[str] = {"ag__"}
        self.generated: Set[str] = set()
        for node in gast.walk(tree):
            if isinstance(node, gast.Name):
                self.taken.add(node.id)
            elif isinstance(node, (gast.FunctionDef, gast.ClassDef, gast.AsyncFunctionDef)):
                self.taken.add(node.name)
            elif isinstance(node, (gast.Global, gast.Nonlocal)):
                self.taken.update(node.names)
            elif isinstance(node, gast.alias):
                self.taken.add((node.asname or node.name).split(".")[0])

    def new(self, base: str) -> str:
        """A fresh name starting with `base`."""
        candidate, i = base, 0
        while candidate in self.taken:
            i += 1
            candidate = f"{base}{i}" if base.endswith("_") else f"{base}_{i}"
        self.taken.add(candidate)
        self.generated.add(candidate)
        return candidate
