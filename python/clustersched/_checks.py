"""Argument checks shared by the workload generators (one place for the messages)."""

from __future__ import annotations

import numbers

import numpy as np

__all__ = ["check_int", "make_rng"]


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


def make_rng(seed: int | np.random.Generator) -> np.random.Generator:
    """A Generator as given, or ``numpy.random.default_rng(seed)`` for an int seed ``>= 0``."""
    if isinstance(seed, np.random.Generator):
        return seed
    return np.random.default_rng(check_int("seed", seed, 0))
