"""The allocator setting of the command line (``auditor.allocator``)."""

import os
import subprocess
import sys

import pytest

from auditor.allocator import keep_freed_memory


def _glibc() -> bool:
    try:
        return os.confstr("CS_GNU_LIBC_VERSION").startswith("glibc")
    except (AttributeError, ValueError, OSError):
        return False


@pytest.mark.skipif(not _glibc(), reason="glibc only")
def test_freed_arrays_are_reused_not_mapped_again():
    """Arrays of 4-28 MB, a few alive at a time (as a chunk's): with the setting, less than
    half the page faults of glibc's default, which maps many of them afresh."""
    code = """
import resource, sys
import numpy as np
from auditor.allocator import keep_freed_memory
if sys.argv[1] == "1":
    assert keep_freed_memory()
alive = []
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for i in range(30):
    alive.append(np.ones((1 + i % 7) << 19))
    if len(alive) > 3:
        alive.pop(0)
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""
    faults = {flag: int(subprocess.run([sys.executable, "-c", code, flag], capture_output=True, text=True,
                                       check=True).stdout) for flag in ("0", "1")}
    assert 2 * faults["1"] < faults["0"], faults


@pytest.mark.skipif(not _glibc(), reason="glibc only")
def test_every_thread_allocates_from_one_heap():
    """With the setting, a second thread's arrays come from the same heap (arena) as the
    first's; by default glibc gives it a heap of its own (``malloc_stats`` lists them)."""
    code = """
import ctypes, sys, threading
from auditor.allocator import keep_freed_memory
if sys.argv[1] == "1":
    assert keep_freed_memory()
thread = threading.Thread(target=lambda: bytearray(1 << 20))
thread.start()
thread.join()
ctypes.CDLL("libc.so.6").malloc_stats()
"""
    arenas = {flag: subprocess.run([sys.executable, "-c", code, flag], capture_output=True, text=True,
                                   check=True).stderr.count("Arena ") for flag in ("0", "1")}
    assert arenas["1"] == 1 and arenas["0"] > 1, arenas


def test_arrow_allocates_from_the_c_heap_unless_told_otherwise():
    code = ("import os, sys; os.environ.pop('ARROW_DEFAULT_MEMORY_POOL', None); os.environ.update(dict([sys.argv[1:]]) if sys.argv[1:] else {}); "
            "from auditor.allocator import arrow_from_the_heap; arrow_from_the_heap(); "
            "import pyarrow as pa; print(pa.default_memory_pool().backend_name)")
    chosen = {args: subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                                   check=True).stdout.strip() for args in ((), ("ARROW_DEFAULT_MEMORY_POOL", "jemalloc"))}
    assert chosen == {(): "system", ("ARROW_DEFAULT_MEMORY_POOL", "jemalloc"): "jemalloc"}


def test_elsewhere_nothing_changes(monkeypatch):
    monkeypatch.setattr(os, "confstr", lambda name: "musl 1.2", raising=False)
    assert keep_freed_memory() is False
