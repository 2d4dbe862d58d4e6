"""How the per-byte parsers are compiled.

The parsers of amounts, cards, action letters and whole numbers walk each value's bytes once.
In numpy the same work takes a dozen passes over temporary arrays, each a full sweep of
memory; compiled by numba, one loop reads a byte once, and it runs without the interpreter
lock, beside the audit of the chunk before (see ``engine._read_ahead``).

Compiled code is cached on disk (``__pycache__`` beside the module, or numba's user-wide
cache where that is not writable), so only the first run on a machine pays the compilation.
"""

from __future__ import annotations

from numba import njit

__all__ = ["kernel"]


def kernel(fn):
    """A loop over arrays, compiled: no Python objects inside, the interpreter lock released."""
    return njit(cache=True, nogil=True)(fn)
