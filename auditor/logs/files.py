"""A log file before any of its rows is read: the suffixes read as logs, the error of a file
that cannot be read at all, and the pass over its bytes that gives its SHA-256 and tells how its
text can be decoded.

Only the standard library here (the message catalogue, loaded only to say an error): start-up
(``auditor.__main__``) hands the files named on the command line to the hashing thread before
pandas and numba are imported. Those imports hold one core for about a second and a half;
without SHA instructions the SHA-256 of a 531 MB log is 2.2-3.5 s of CPU, a third to a half of
which now runs on the other core while they import.
``digest_job`` finds a file's pass there when the file is the same (device, inode, size,
modification and change times), and otherwise begins it.
"""

from __future__ import annotations

import codecs
import functools
import gzip
import hashlib
import os
import stat
import sys
import threading
import zlib
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

__all__ = ["SUFFIXES", "InputError", "Scan", "scan", "sha256_of", "digest_job", "begin", "first_line", "path_text",
           "read_as", "read_failure", "system_failure", "gzip_failure", "line_at"]

SUFFIXES = (".csv", ".csv.gz", ".jsonl", ".jsonl.gz", ".parquet")
# Read 8 MB at a time: while start-up imports, the hashing thread waits for the interpreter
# lock after each block (up to the 5 ms switch interval), a small part of a block's 40 ms.
_BLOCK = 1 << 23
# Bytes that Windows-1252 leaves undefined: a file holding one is not Windows-1252 text.
_CP1252_UNDEFINED = (b"\x81", b"\x8d", b"\x8f", b"\x90", b"\x9d")
# UTF-16's byte order mark, little- and big-endian.
_UTF16_MARKS = (b"\xff\xfe", b"\xfe\xff")


def read_as(name) -> str:
    """The suffix of ``SUFFIXES`` a log's name ends with (its case aside), which says how its
    bytes are read; "" for another name."""
    low = str(name).lower()
    return next((s for s in SUFFIXES if low.endswith(s)), "")


def path_text(path) -> str:
    r"""A file's name as the reports and the ledger give it: the name itself, unless it holds
    bytes that are no UTF-8 (a file named by a system in another locale: ``mesa-ñ`` in Latin-1
    is the bytes ``mesa-`` and F1), which Python keeps as lone surrogates that no UTF-8 text can
    hold: those bytes are shown escaped, ``mesa-\xf1.csv``, as Python's ``backslashreplace``
    shows them (and as the audit shows a Parquet value's bytes that are no text)."""
    text = str(path)
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        pass
    try:
        raw = os.fsencode(text)
    except UnicodeEncodeError:  # (not a name the system gave: no bytes stand behind it)
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return raw.decode("utf-8", "backslashreplace")


class InputError(Exception):
    """A file that cannot be read at all (exit code 2). ``key`` names the catalogue message;
    ``path`` is the file's name as text (``path_text``). A value of ``params`` that is a (key,
    values) pair is a message of the catalogue too (a reason: ``read_failure``)."""

    def __init__(self, path: str, key: str, **params):
        path = path_text(path)
        super().__init__(f"{path}: {key} {params}")
        self.path = path
        self.key = key
        self.params = params

    def text(self, lang: str) -> str:
        """The message in ``lang``."""
        return _said((self.key, self.params), lang)


def _said(value, lang: str):
    """``value`` in ``lang``: a (key, values) pair as the catalogue says it, anything else as it is."""
    if not isinstance(value, tuple):
        return value
    from ..i18n import t

    key, params = value
    return t(key, lang, **{name: _said(v, lang) for name, v in params.items()})


def first_line(exc: BaseException, limit: int | None = None) -> str | tuple[str, dict]:
    """A library's own text of ``exc`` (its first line, up to ``limit`` characters), quoted where
    the catalogue has no words for the reason; the catalogue's "no reason given" where it has none."""
    text = str(exc).strip()
    return text.splitlines()[0][:limit] if text else ("input.no_reason", {})


def read_failure(exc: BaseException, path, encoding: str | None = None) -> tuple[str, dict] | None:
    """The catalogue key (and its values) of why reading ``path``'s bytes (as text in
    ``encoding``) failed with ``exc``, where the catalogue has words for it: the operating
    system's reason, a gzip stream's (``gzip_failure``), a text without the byte order mark
    its encoding requires. None for another reason: the caller quotes the library's text."""
    said = system_failure(exc)
    if said is not None:
        return said
    if isinstance(exc, (zlib.error, EOFError, gzip.BadGzipFile)):
        return gzip_failure(exc, path)
    # Python's decoders of UTF-16 and UTF-32 named without their byte order ("utf-16", not
    # "utf-16-le") read it from the mark the text begins with, and refuse a text without one.
    if isinstance(exc, UnicodeError) and str(exc).endswith("stream does not start with BOM"):
        return "input.encoding_mark_missing", {"encoding": encoding or ""}
    return None


def system_failure(exc: BaseException) -> tuple[str, dict] | None:
    """``input.unreadable`` with the operating system's reason, in the catalogue's words, for
    an error the system gave (an OSError with its errno); None for another."""
    if isinstance(exc, OSError) and exc.errno is not None:
        from ..i18n import os_error_key

        return "input.unreadable", {"error": os_error_key(exc)}
    return None


# zlib's and the gzip module's reasons, in the catalogue's words: their own text is English
# ("Error -3 while decompressing data: incorrect header check") and says nothing of what to do.
_GZIP_CHECKS = ("incorrect data check", "incorrect length check", "crc check failed", "incorrect length of data")


def gzip_failure(exc: BaseException, path) -> tuple[str, dict]:
    """The catalogue key (and its values) of why ``path``'s gzip stream cannot be read: no
    gzip at all, cut short, its data not matching their checksum, or not decompressible;
    ``input.bad_gzip`` quoting zlib for another reason."""
    if isinstance(exc, EOFError):  # "Compressed file ended before the end-of-stream marker was reached"
        return "input.gzip_truncated", {}
    text = first_line(exc)
    reason = text.lower() if isinstance(text, str) else ""
    if any(check in reason for check in _GZIP_CHECKS):
        return "input.gzip_check_failed", {}
    if "incorrect header check" in reason or reason.startswith("not a gzipped file"):
        # (the same words for a file that is no gzip and for bytes after a member that are none)
        return ("input.gzip_damaged" if _begins_as_gzip(path) else "input.not_gzip"), {}
    if reason.startswith(("error -3 ", "unknown compression method")):  # zlib's Z_DATA_ERROR: data it cannot inflate
        return "input.gzip_damaged", {}
    return "input.bad_gzip", {"error": text}


def _begins_as_gzip(path) -> bool:
    try:
        with open(path, "rb") as fh:
            return fh.read(2) == b"\x1f\x8b"
    except OSError:  # (not known: said damaged rather than misnamed)
        return True


@dataclass
class Scan:
    utf8: bool  # valid UTF-8 throughout
    utf8_but_tail: bool  # valid UTF-8 but for a character cut off at the very end
    cp1252: bool
    utf16_bom: bool
    blank: bool  # nothing but blanks (and a BOM)
    # Of a scan told the encoding the text must be in (``--encoding``), or of a text that
    # begins with UTF-16's byte order mark and is told no encoding (read as UTF-16, so checked
    # to be so): where the text first is none in it (the offset of its first such byte in the
    # text, decompressed for ``.gz``, and those bytes), None if it is text in it throughout.
    not_text: tuple[int, bytes] | None = None


def scan(path: Path, digest=None, encoding: str | None = None) -> Scan:
    """One pass over the file: what its text (decompressed, for ``.gz``) can be decoded as.
    A damaged gzip stream is an InputError here, before any row is read. ``digest`` (a
    hashlib object) is given the file's bytes on the way. ``encoding`` (a Python codec's
    name): the text is checked to be text in it too (``Scan.not_text``), in the same pass;
    UTF-8 and Windows-1252 by the checks made anyway, a codec that reads every byte as a
    character (Latin-1) not at all, another by decoding it. Without ``encoding``, a text that
    begins with UTF-16's byte order mark is checked to be UTF-16 (the detection reads it so)."""
    gz = path.name.lower().endswith(".gz")
    decoder = codecs.getincrementaldecoder("utf-8")("strict")
    state = {"utf8": True, "cp1252": True, "head": b"", "content": False, "at": 0, "not_text": None}
    wanted = _checked_as(encoding)
    other = codecs.getincrementaldecoder(encoding)("strict") if wanted == "decoded" else None

    def not_text(at: int, pending: bytes, text: bytes, exc: UnicodeDecodeError) -> None:
        """Where ``exc`` says a decoder fed ``text`` at offset ``at`` (holding ``pending``
        bytes of the text before it) found bytes that are no text."""
        state["not_text"] = (at - len(pending) + exc.start, (pending + text)[exc.start:exc.end])

    def feed(text: bytes) -> None:
        nonlocal other
        if len(state["head"]) < 4:
            before = state["head"]
            state["head"] += text[:4]
            if encoding is None and len(before) < 2 <= len(state["head"]) and state["head"][:2] in _UTF16_MARKS:
                # (a gzip member may have given its first byte alone: it is fed first)
                other = codecs.getincrementaldecoder("utf-16")("strict")
                other.decode(before)
        if not state["content"] and text.strip(b" \t\r\n\x00\xef\xbb\xbf"):
            state["content"] = True
        if not text:  # an empty read (between two gzip members) says nothing
            return
        at = state["at"]
        state["at"] += len(text)
        if other is not None:
            pending = other.getstate()[0]
            try:
                other.decode(text)
            except UnicodeDecodeError as exc:
                not_text(at, pending, text, exc)
                other = None
            except UnicodeError:  # (UTF-16's mark missing: said when the text is read, as it was)
                other = None
        if text.isascii():  # the usual export: valid UTF-8 and Windows-1252 alike, nothing to decode
            if state["utf8"]:
                try:  # unless the previous block ended inside a character
                    decoder.decode(b"", True)
                except UnicodeDecodeError as exc:
                    state["utf8"] = False
                    if wanted == "utf-8":
                        not_text(at, decoder.getstate()[0], b"", exc)
            return
        if state["utf8"]:
            try:
                decoder.decode(text)
            except UnicodeDecodeError as exc:
                state["utf8"] = False
                if wanted == "utf-8":  # (the bytes the decoder held are still its state)
                    not_text(at, decoder.getstate()[0], text, exc)
        if state["cp1252"] and any(b in text for b in _CP1252_UNDEFINED):
            state["cp1252"] = False
            if wanted == "cp1252":
                first = min(i for i in (text.find(b) for b in _CP1252_UNDEFINED) if i >= 0)
                state["not_text"] = (at + first, text[first:first + 1])

    unzip = zlib.decompressobj(31) if gz else None
    started = False  # a gzip member has begun and not yet ended
    try:
        with path.open("rb") as fh:
            for block in iter(lambda: fh.read(_BLOCK), b""):
                if digest is not None:
                    digest.update(block)
                if unzip is None:
                    feed(block)
                    continue
                data = block
                while True:
                    started = started or bool(data)
                    # Bounded output per call: a "zip bomb" is read in pieces like any file.
                    out = unzip.decompress(data, _BLOCK)
                    feed(out)
                    if unzip.eof:  # a member ended; another may follow (or zero padding)
                        data = unzip.unused_data
                        unzip, started = zlib.decompressobj(31), False
                        if not data.strip(b"\x00"):
                            break
                        continue
                    data = unzip.unconsumed_tail
                    if not data and len(out) < _BLOCK:
                        break
            if started:
                raise InputError(str(path), "input.gzip_truncated")
    except zlib.error as exc:
        key, params = gzip_failure(exc, path)
        raise InputError(str(path), key, **params) from None
    utf8, tail = state["utf8"], False
    # (the text's last bytes, which a decoder holds while they may begin a character)
    for final in ([decoder] if utf8 else []) + ([other] if other is not None else []):
        pending = final.getstate()[0]
        try:
            final.decode(b"", True)
        except UnicodeDecodeError as exc:
            if final is decoder:
                utf8, tail = False, True
            if final is other or wanted == "utf-8":
                not_text(state["at"], pending, b"", exc)
    head = state["head"]
    return Scan(utf8=utf8, utf8_but_tail=tail, cp1252=state["cp1252"],
                utf16_bom=head[:2] in _UTF16_MARKS, blank=not state["content"],
                not_text=state["not_text"])


def _checked_as(encoding: str | None) -> str | None:
    """How ``scan`` checks a text to be in ``encoding``: "utf-8" and "cp1252" by its checks of
    those, "decoded" by decoding it, None for no encoding or one in which every byte is a
    character (Latin-1, cp850: no text can fail to be in it)."""
    if encoding is None:
        return None
    name = codecs.lookup(encoding).name
    if name in ("utf-8", "utf-8-sig"):
        return "utf-8"
    if name == "cp1252":
        return "cp1252"
    return None if _every_byte_a_character(name) else "decoded"


@functools.cache
def _every_byte_a_character(name: str) -> bool:
    """Whether the codec reads each byte on its own as one character (a code page of 256
    characters): then every text is one in it. Not so a codec of several bytes a character
    (UTF-16, Shift-JIS), of a state (ISO-2022), nor of bytes it leaves undefined."""
    try:
        return all(len(codecs.decode(bytes([b]), name)) == 1 for b in range(256))
    except (UnicodeError, LookupError):
        return False


def line_at(path: Path, offset: int, encoding: str) -> int:
    """The line (from 1) of ``path``'s text (decompressed, for ``.gz``) that holds the byte at
    ``offset``, the text before it read in ``encoding``: the lines that end before it (by LF,
    CR or CRLF, as the readers number them), plus one. Only where a file is refused (a pass
    over its text up to there)."""
    opener = gzip.open if path.name.lower().endswith(".gz") else open
    decoder = codecs.getincrementaldecoder(encoding)("replace")
    ends, carried_cr, left = 0, False, offset
    with opener(path, "rb") as fh:
        while left > 0:
            block = fh.read(min(left, _BLOCK))
            if not block:
                break
            left -= len(block)
            text = decoder.decode(block)
            if carried_cr and text.startswith("\n"):
                ends -= 1  # (a CRLF across two blocks is one line end)
            ends += text.count("\n") + text.count("\r") - text.count("\r\n")
            carried_cr = text.endswith("\r") or (carried_cr and not text)
    return ends + 1


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with Path(path).open("rb") as fh:
        for block in iter(lambda: fh.read(_BLOCK), b""):
            h.update(block)
    return h.hexdigest()


def _digest_and_scan(path: Path, scanned: bool) -> tuple[str, Scan | None]:
    """The file's SHA-256 and, if ``scanned``, its ``scan``, in one read."""
    if not scanned:
        return sha256_of(path), None
    digest = hashlib.sha256()
    found = scan(path, digest)
    return digest.hexdigest(), found


def digest_job(path: Path, scanned: bool) -> Future:
    """The future (SHA-256, ``Scan`` or None) of ``path``, computed in the hashing thread: the
    one ``begin`` started for this file if it is still the same file, else a new one."""
    key = _identity(path)
    early = _EARLY[1] if _EARLY is not None and _EARLY[0] == os.getpid() else {}
    job, had_scan = early.pop(key, (None, False)) if key is not None else (None, False)
    if job is None or (scanned and not had_scan):
        job = _hashing().submit(_digest_and_scan, Path(path), scanned)
    return job


def begin(args: list[str]) -> None:
    """At start-up, before the heavy imports: the pass of every log file named on an ``audit``
    command line begins in the hashing thread (a folder's files wait until they are opened). A
    plain CSV file is scanned too, as ``sources.open_source`` will want when its first bytes are
    ASCII; a file never opened (an option's value, a run that stops early) costs only the
    hashing thread's time."""
    global _EARLY
    jobs: dict[tuple, tuple[Future, bool]] = {}
    for arg in args[1:] if args[:1] == ["audit"] else []:
        if arg.startswith("-") or not arg.lower().endswith(SUFFIXES):
            continue
        key = _identity(Path(arg))
        if key is not None and key not in jobs:
            scanned = arg.lower().endswith(".csv")
            jobs[key] = (_hashing().submit(_digest_and_scan, Path(arg), scanned), scanned)
    _EARLY = (os.getpid(), jobs)


def _identity(path: Path) -> tuple | None:
    """A regular file as it is now; None for anything else (or nothing)."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    # The change time too: a file rewritten in place can be given its old modification time
    # back (cp -p, touch -r), not its change time.
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns


# One executor per process: a process forked by the batch runner inherits the executor but
# not its thread, and would wait forever (and the early jobs are the parent's, too).
_HASHING: tuple[int, ThreadPoolExecutor] | None = None
_EARLY: tuple[int, dict[tuple, tuple[Future, bool]]] | None = None


def _hashing() -> ThreadPoolExecutor:
    global _HASHING
    if _HASHING is None or _HASHING[0] != os.getpid():
        _HASHING = (os.getpid(), ThreadPoolExecutor(max_workers=1, thread_name_prefix="auditor-sha256",
                                                    initializer=_yielding))
    return _HASHING[1]


def _yielding() -> None:
    """The hashing thread gives way to the audit's two threads, which set its pace: on a CPU
    without SHA instructions the digest of a 531 MB log is 2.2-3.5 s of CPU, which took turns
    with them on the machine's two cores. It runs in their waits (and in start-up's, see
    ``begin``), and at full speed once they are done. (Linux keeps a priority per thread;
    elsewhere the thread's id is not a process's, and the thread keeps the audit's priority.)"""
    if sys.platform.startswith("linux"):
        try:
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)
        except OSError:
            pass
