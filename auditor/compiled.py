"""How the per-byte parsers are compiled.

The parsers of amounts, cards, action letters and whole numbers walk each value's bytes once.
In numpy the same work takes a dozen passes over temporary arrays, each a full sweep of
memory; compiled by numba, one loop reads a byte once, and it runs without the interpreter
lock, beside the audit of the chunk before (see ``engine._read_ahead``).

Bytes are moved and compared eight at a time where they lie at any alignment (``load8``,
``store8``): a field of a log is a few bytes long, and a loop over its bytes costs a
mispredicted branch at every field's end.

Compiled code is cached on disk (``__pycache__`` beside the module, or numba's user-wide
cache where that is not writable), so only the first run on a machine pays the compilation.
"""

from __future__ import annotations

from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

__all__ = ["kernel", "load8", "store8", "trailing_zeros", "popcount"]


def kernel(fn):
    """A loop over arrays, compiled: no Python objects inside, the interpreter lock released."""
    return njit(cache=True, nogil=True)(fn)


@intrinsic
def load8(typingctx, array, index):
    """Inside a kernel: the eight bytes of a byte array from ``index`` on, as one word
    (little-endian), at any alignment. The caller keeps ``index + 8`` within the array."""

    def codegen(context, builder, signature, args):
        data = context.make_array(signature.args[0])(context, builder, args[0]).data
        word = builder.bitcast(builder.gep(data, [args[1]]), ir.IntType(64).as_pointer())
        return builder.load(word, align=1)

    return types.uint64(array, types.intp), codegen


@intrinsic
def store8(typingctx, array, index, value):
    """Inside a kernel: writes ``value`` (a word) as the eight bytes of a byte array from
    ``index`` on, at any alignment. The caller keeps ``index + 8`` within the array."""

    def codegen(context, builder, signature, args):
        data = context.make_array(signature.args[0])(context, builder, args[0]).data
        word = builder.bitcast(builder.gep(data, [args[1]]), ir.IntType(64).as_pointer())
        builder.store(args[2], word, align=1)
        return context.get_dummy_value()

    return types.void(array, types.intp, types.uint64), codegen


@intrinsic
def trailing_zeros(typingctx, word):
    """Inside a kernel: the number of zero bits below the lowest set bit of a word (one
    instruction where the machine has it)."""

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

    return types.uint64(types.uint64), codegen


@intrinsic
def popcount(typingctx, word):
    """Inside a kernel: the number of set bits of a word."""

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return types.uint64(types.uint64), codegen
