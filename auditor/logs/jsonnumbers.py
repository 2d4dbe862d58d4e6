"""A JSONL line's JSON value as Python's reader gives it, at its speed, but for the numbers it
reads as none of its own: an integer of more than 4,300 digits, which it refuses to convert
(the line was unreadable JSON), and a number beyond a float's range (``1e400``), which it reads
as infinity (a JSON value of no field's kind, as ``Infinity`` written so is). Those are kept as
their text (``Number``), which a field reads as it reads the number in digits: an amount too
large, a whole number that is none of the format's. The lines where the reader fails are read
again keeping them (``json_of``); a number read as infinity is told from the reader's
``Infinity`` (``Constant``) and its line parsed again where the batch is made
(``sources._beyond_floats``)."""

from __future__ import annotations

import json
import math

__all__ = ["Number", "Constant", "NUMBERS_KEPT", "json_of", "whole", "real"]


class Number(str):
    """A JSON number that Python reads as no number of its own, kept as its text."""


def whole(text: str):
    """An integer's text as Python's int, or as its text where it has more digits than Python
    converts (``sys.get_int_max_str_digits``)."""
    try:
        return int(text)
    except ValueError:
        return Number(text)


def real(text: str):
    """A number's text (a fraction or an exponent) as a float, or as its text where it is
    beyond a float's range."""
    value = float(text)
    return value if math.isfinite(value) else Number(text)


class Constant(float):
    """``NaN``, ``Infinity``, ``-Infinity`` as a JSON line writes them (no JSON's, but Python's
    reader takes them): a float of this type, told so from a number beyond a float's range,
    which Python reads as infinity too (``ingest._json_scalar_to_str``)."""


# The reader of every line (Python's own, ``json.loads``'s: its numbers are not looked at one
# by one), and the one of the lines where it fails or meets a number beyond a float's range.
_DECODER = json.JSONDecoder(parse_constant=Constant)
NUMBERS_KEPT = json.JSONDecoder(parse_constant=Constant, parse_int=whole, parse_float=real)


def json_of(line: str):
    """The JSON value of a line, numbers Python does not convert kept as their text. Raises
    ValueError (JSONDecodeError) for a line that is no JSON, and UnicodeEncodeError for an
    escape that names half a UTF-16 pair (no text)."""
    try:
        doc = _DECODER.decode(line)
    except ValueError as exc:
        if isinstance(exc, json.JSONDecodeError):
            raise
        doc = NUMBERS_KEPT.decode(line)  # (an integer of more digits than Python converts)
    if "\\u" in line:  # an escape may name half a UTF-16 pair, which is no text
        json.dumps(doc, ensure_ascii=False).encode("utf-8")
    return doc
