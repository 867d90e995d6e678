"""The `autograph` command line: show every stage of compiling one function.

`main` is the console script's entry point; `load` finds `FILE:FUNC`, `sig`
reads the `--sig` mini-language.
"""
from .command import main

__all__ = ["main"]
