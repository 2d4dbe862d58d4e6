"""The allocator setting of the command line (``auditor.allocator``)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from auditor.allocator import keep_freed_memory

ROOT = Path(__file__).resolve().parent.parent


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
    arenas = {flag: subprocess.run([sys.executable, "-c", code, flag], capture_output=True, text=True, check=True,
                                   env=_glibc_defaults()).stderr.count("Arena ") for flag in ("0", "1")}
    assert arenas["1"] == 1 and arenas["0"] > 1, arenas


@pytest.mark.skipif(not _glibc(), reason="glibc only")
def test_the_command_audits_from_one_heap(tmp_path):
    """The ``auditor`` command sets the allocator before its first thread starts (the hashing
    of the files named, at start-up): after an audit, whose reader, hashing and numba threads
    all allocate, there is one heap. (Set after the hashing thread's start, it leaves two.)"""
    log = next(p for p in sorted((ROOT / "sample_logs").rglob("*.csv")) if not p.name.endswith(".truth.csv"))
    code = ("import ctypes, os, sys; exit = os._exit; "
            "os._exit = lambda code: (sys.stderr.flush(), ctypes.CDLL('libc.so.6').malloc_stats(), exit(code)); "
            f"sys.argv = ['auditor', 'audit', {str(log)!r}, '--format', 'json', "
            f"'--out', {str(tmp_path)!r}]; "
            "from auditor.__main__ import main; main()")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                          env=_glibc_defaults())
    assert (tmp_path / "audit-report.json").exists(), done.stderr
    assert done.stderr.count("Arena ") == 1, done.stderr


@pytest.mark.skipif(not _glibc(), reason="glibc only")
def test_the_freed_memory_kept_for_the_chunks_is_given_back_once_the_reading_is_over():
    """With the setting, arrays freed stay in the process (their pages resident) for the next
    chunk; ``release_freed_memory`` gives them back, and ``engine.audit`` calls it once every
    log is read, before the findings are put together (a 10M-round audit peaked as it built its
    report, the heap holding ~950 MB freed)."""
    code = """
import sys
import numpy as np
from auditor.allocator import keep_freed_memory, release_freed_memory
assert keep_freed_memory()
def resident():
    return int(open("/proc/self/statm").read().split()[1]) * 4096 >> 20
alive = [np.ones(1 << 21) for _ in range(16)]  # 16 arrays of 16 MB, from the heap
del alive
kept = resident()
release_freed_memory()
print(kept, resident())
"""
    kept, released = map(int, subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                             check=True, env=_glibc_defaults()).stdout.split())
    assert kept - released > 200, (kept, released)


def test_an_audit_gives_the_freed_memory_back_once_its_logs_are_read(monkeypatch, tmp_path):
    from auditor import engine

    calls = []
    monkeypatch.setattr(engine, "release_freed_memory", lambda: calls.append("released"))
    log = next(p for p in sorted((ROOT / "sample_logs").rglob("*.csv")) if not p.name.endswith(".truth.csv"))
    result = engine.audit([log])
    assert calls == ["released"] and result.totals["rounds"] > 0


def _glibc_defaults() -> dict:
    """The environment without settings of glibc's allocator (they would decide for it)."""
    return {k: v for k, v in os.environ.items() if not k.startswith(("MALLOC_", "GLIBC_TUNABLES"))}


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
