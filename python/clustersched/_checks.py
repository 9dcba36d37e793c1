"""Argument checks shared by the whole library: one place, one message style.

Every check raises ``TypeError`` for a value of the wrong type and
``ValueError`` for one out of range, with the argument's name, its value and
the rule, as in ``"procs == 0, must be >= 1"`` (docs/layout.md, "Errors").
"""

from __future__ import annotations

import math
import numbers
from typing import Any, Iterable, Sequence

import numpy as np

__all__ = ["MAX_PROCS", "check_choice", "check_float", "check_int", "frozen", "lookup", "make_rng", "short_repr"]

#: Most processors a machine may have: the Rust core counts processors in ``u32``.
MAX_PROCS = 2**32 - 1


def check_int(name: str, value: object, minimum: int, maximum: int | None = None) -> int:
    """``value`` as an int in ``[minimum, maximum]``, else TypeError/ValueError naming it."""
    # bool is an Integral but never a meaningful count, so refuse it explicitly.
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} == {value!r}, must be an integer")
    value = int(value)
    if value < minimum:
        raise ValueError(f"{name} == {value}, must be >= {minimum}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name} == {value}, must be <= {maximum}")
    return value


def check_float(
    name: str,
    value: object,
    *,
    positive: bool = False,
    minimum: float | None = None,
    maximum: float | None = None,
) -> float:
    """``value`` as a finite float (``> 0`` if ``positive``, within ``[minimum, maximum]``).

    TypeError for a non-real (``bool`` included), ValueError naming the rule otherwise.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} == {value!r}, must be a real number")
    try:
        x = float(value)
    except OverflowError:  # an int beyond float64's range
        raise ValueError(f"{name} == {short_repr(value)}, must be finite") from None
    # Messages show the value as given (``0``, not ``0.0``).
    if not math.isfinite(x):
        raise ValueError(f"{name} == {value}, must be finite")
    if positive and not x > 0:
        raise ValueError(f"{name} == {value}, must be > 0")
    if minimum is not None and x < minimum:
        raise ValueError(f"{name} == {value}, must be >= {minimum}")
    if maximum is not None and x > maximum:
        raise ValueError(f"{name} == {value}, must be <= {maximum}")
    return x


def check_choice(name: str, value: Any, allowed: Sequence[str]) -> str:
    """``value`` if it is one of ``allowed``, else ValueError listing them."""
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(f"{name} == {value!r}, must be one of {', '.join(map(repr, allowed))}")
    return value


def lookup(kind: str, name: object, names: Iterable[str]) -> str:
    """The canonical spelling, among ``names``, of the algorithm or policy ``name``.

    The one name rule of every registry in the library (``batch.ALGORITHMS``,
    ``ptg.ALGORITHMS``, ``scrap.ALGORITHMS``, ``grid.ALGORITHMS``): an exact
    match first, else a match ignoring case with ``-`` and ``_`` read alike.
    ValueError naming ``kind`` and listing the names otherwise.

    Examples
    --------
    >>> lookup("algorithm", "selfish-order", ["SELFISH", "SELFISH_ORDER"])
    'SELFISH_ORDER'
    >>> lookup("policy", "DPSA_P", ["easy", "dpsa-p"])
    'dpsa-p'
    >>> lookup("policy", "lifo", ["fcfs", "easy"])
    Traceback (most recent call last):
    ...
    ValueError: policy == 'lifo', must be one of 'fcfs', 'easy'
    """
    names = list(names)
    if isinstance(name, str):
        if name in names:
            return name
        key = name.casefold().replace("_", "-")
        for canonical in names:
            if canonical.casefold().replace("_", "-") == key:
                return canonical
    raise ValueError(f"{kind} == {short_repr(name)}, must be one of {', '.join(map(repr, names))}")


def frozen(a: np.ndarray) -> np.ndarray:
    """``a`` made read-only, so that an accidental write to arrays shared with Rust or between copies fails."""
    a.setflags(write=False)
    return a


def make_rng(seed: int | np.random.Generator) -> np.random.Generator:
    """A Generator as given, or ``numpy.random.default_rng(seed)`` for an int seed ``>= 0``."""
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise TypeError(f"seed == {seed!r}, must be an integer >= 0 or a numpy.random.Generator")
    return np.random.default_rng(check_int("seed", seed, 0))


def short_repr(value: object, limit: int = 40) -> str:
    """``repr(value)``, cut in the middle when longer than ``limit`` (a 400-digit int...)."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[:20]}...{text[-10:]} ({len(text)} characters)"
