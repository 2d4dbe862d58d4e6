"""How the per-byte parsers are compiled.

The parsers of amounts, cards, action letters and whole numbers walk each value's bytes once.
In numpy the same work takes a dozen passes over temporary arrays, each a full sweep of
memory; compiled by numba, one loop reads a byte once, and it runs without the interpreter
lock, beside the audit of the chunk before (see ``engine._read_ahead``).

Bytes are moved and compared eight at a time where they lie at any alignment (``load8``,
``store8``): a field of a log is a few bytes long, and a loop over its bytes costs a
mispredicted branch at every field's end. Bytes are searched sixty-four at a time
(``byte_marks``): one vector compare where the machine has one (AVX2, AVX-512, NEON).

Compiled code is cached on disk (``__pycache__`` beside the module, or numba's user-wide
cache where that is not writable), so only the first run on a machine pays the compilation;
it is loaded from there without numba's compiler machinery (``_MachineCode``).
"""

from __future__ import annotations

import re
import sys
from contextlib import contextmanager

import numba
from llvmlite import ir
from numba import njit, types
from numba.core import caching, environment
from numba.core.runtime import rtsys
from numba.extending import intrinsic

__all__ = ["kernel", "load8", "store8", "byte_marks", "trailing_zeros", "popcount"]


class _MachineCode(caching.FunctionCache):
    """The disk cache of a kernel, loaded as numba's own ``FunctionCache`` loads it but for
    ``target_context.refresh()``, which imports and registers every implementation numba
    could compile (about a hundred modules: 0.11-0.17 s, holding the interpreter lock, before an
    audit's first rows; nothing else runs then). Machine code read from the cache needs none of
    them: numba's runtime, which its arrays call (``rtsys.initialize``, the refresh's first
    step), and the modules whose helpers it calls, which are imported as its environment is
    read. A signature not in the cache is compiled as before: numba's compiler refreshes the
    contexts itself. Only the kernels' caches load this way (see ``kernel``)."""

    def load_overload(self, sig, target_context):
        rtsys.initialize(target_context)
        with self._guard_against_spurious_io_errors(), _helpers_unimported():
            return self._load_overload(sig, target_context)


@contextmanager
def _helpers_unimported():
    """While a kernel's cache is read: the environment of each of numba's own functions that
    the kernel's machine code holds (an array's allocation, a sort) made without importing its
    module. numba imports it for its namespace, which only code compiled in object mode reads
    at run time; a kernel and everything it calls are compiled in nopython mode, their globals
    frozen as constants (``pylowering`` alone reads ``Environment.globals``). Those imports
    were about twenty modules of numba's implementations (``numba.np.arrayobj``,
    ``numba.cpython.unicode``, …): 80-90 ms, holding the interpreter lock as the reader's first
    kernels load, before the audit's first rows. The swap is safe only under numba's compiler
    lock, which ``Dispatcher.compile`` takes around every cache load and save: meanwhile no
    other thread unpickles an environment, nor pickles one (pickle would not find numba's
    function under its name)."""
    rebuild = environment._rebuild_env

    def rebuild_env(modname, consts, env_name):
        if modname in sys.modules or not modname.startswith("numba."):
            return rebuild(modname, consts, env_name)
        env = environment.lookup_environment(env_name)
        if env is None:
            env = environment.Environment({"__name__": modname})
            env.consts[:] = consts
            env.env_name = env_name
            environment.Environment._memo[env_name] = env
        return env

    environment._rebuild_env = rebuild_env
    try:
        yield
    finally:
        environment._rebuild_env = rebuild


def _load_as_machine_code() -> bool:
    """Whether this numba's ``FunctionCache.load_overload`` is read to be that refresh then that
    load: 0.60 (the lowest that pyproject.toml allows) to 0.68. A later one keeps its own until
    it is read; so does a numba whose version says nothing (a build without its git data)."""
    found = re.match(r"(\d+)\.(\d+)", numba.__version__)
    return found is not None and (0, 60) <= (int(found[1]), int(found[2])) < (0, 69)


_MACHINE_CODE = _load_as_machine_code()


def kernel(fn):
    """A loop over arrays, compiled: no Python objects inside, the interpreter lock released."""
    compiled = njit(cache=True, nogil=True)(fn)
    if _MACHINE_CODE:  # in place of the cache njit gave it (``Dispatcher.enable_caching``)
        compiled._cache = _MachineCode(compiled.py_func)
    return compiled


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


_MARKED = 64  # bytes a call of byte_marks looks at


@intrinsic
def byte_marks(typingctx, array, index, a, b):
    """Inside a kernel: a word whose bit k is set where byte ``index + k`` of a byte array is
    ``a`` or ``b``, for k from 0 to 63 (read at any alignment; the caller keeps ``index + 64``
    within the array). LLVM makes it a few vector compares and a mask move."""

    def codegen(context, builder, signature, args):
        vector = ir.VectorType(ir.IntType(8), _MARKED)
        data = context.make_array(signature.args[0])(context, builder, args[0]).data
        text = builder.load(builder.bitcast(builder.gep(data, [args[1]]), vector.as_pointer()), align=1)

        def equal(byte):
            lane = builder.insert_element(ir.Constant(vector, ir.Undefined), builder.trunc(byte, ir.IntType(8)),
                                          ir.Constant(ir.IntType(32), 0))
            every = builder.shuffle_vector(lane, ir.Constant(vector, ir.Undefined),
                                           ir.Constant(ir.VectorType(ir.IntType(32), _MARKED), [0] * _MARKED))
            return builder.icmp_unsigned("==", text, every)

        return builder.bitcast(builder.or_(equal(args[2]), equal(args[3])), ir.IntType(_MARKED))

    return types.uint64(array, types.intp, types.intp, types.intp), codegen


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
