"""Slurm host lists: ``n[1-4],g[001-002],b1`` and the names they stand for.

Slurm writes sets of node names as *host lists* (``slurm.conf``'s ``NodeName``
and ``Nodes``, sacct's ``NodeList``): comma-separated items, each a name whose
numeric parts may be bracketed ranges.  This module follows the syntax of
Slurm's ``src/common/hostlist.c`` as documented in the slurm.conf man page
(section "NODE CONFIGURATION", Slurm 17.11 to 23.x; the syntax has not changed):

* ``n[1-4]`` is ``n1 n2 n3 n4``; the width of a range's first bound is the
  width of every name (``g[001-010]`` is ``g001 ... g010``; ``n[8-10]`` is
  ``n8 n9 n10``);
* a bracket holds a list of numbers and ranges, ``n[1,3-5]``;
* a name may hold several brackets, expanded as nested loops, the leftmost
  outermost: ``r[1-2]n[1-2]`` is ``r1n1 r1n2 r2n1 r2n2``;
* text may follow a bracket (``n[1-2]-ib``).

:func:`compress_hostlist` writes the shortest list Slurm would write for a set
of names: the trailing number of each name is bracketed, names grouped by the
text before it, each group in the order its first name appears, its numbers
sorted and merged into ranges (``n[1-2],g1``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..errors import InvalidPlatformError

__all__ = ["MAX_HOSTS", "compress_hostlist", "expand_hostlist"]

#: The most names one host list may expand to (a typo such as ``n[1-1000000000]`` is refused, not expanded).
MAX_HOSTS = 1_000_000

_RANGE = re.compile(r"([0-9]+)(?:-([0-9]+))?")
_TRAILING_NUMBER = re.compile(r"^(.*?)([0-9]+)$")
_FORBIDDEN = set("[],")


def _split_top(text: str) -> list[str]:
    """``text`` split at the commas outside brackets; raises on an unbalanced bracket."""
    items, depth, start = [], 0, 0
    for i, c in enumerate(text):
        if c == "[":
            if depth:
                raise InvalidPlatformError(f"host list {text!r} has a bracket inside a bracket", value=text)
            depth = 1
        elif c == "]":
            if not depth:
                raise InvalidPlatformError(f"host list {text!r} has a ']' without its '['", value=text)
            depth = 0
        elif c == "," and not depth:
            items.append(text[start:i])
            start = i + 1
    if depth:
        raise InvalidPlatformError(f"host list {text!r} has an unclosed '['", value=text)
    items.append(text[start:])
    return items


def _bracket(body: str, text: str) -> list[str]:
    """The numbers (as text, padded) of one bracket's body ``1,3-5``."""
    numbers: list[str] = []
    for piece in body.split(","):
        match = _RANGE.fullmatch(piece.strip())
        if match is None:
            raise InvalidPlatformError(
                f"host list {text!r}: {piece!r} is not a number or a range lo-hi of numbers", value=text
            )
        lo_text, hi_text = match.group(1), match.group(2)
        lo = int(lo_text)
        hi = lo if hi_text is None else int(hi_text)
        if hi < lo:
            raise InvalidPlatformError(f"host list {text!r}: range {piece!r} ends before it starts", value=text)
        if hi - lo + 1 > MAX_HOSTS:
            raise InvalidPlatformError(
                f"host list {text!r}: range {piece!r} holds more than {MAX_HOSTS} names", value=text
            )
        width = len(lo_text)
        numbers.extend(str(k).zfill(width) for k in range(lo, hi + 1))
    return numbers


def _expand_item(item: str, text: str) -> list[str]:
    names = [""]
    rest = item
    while rest:
        open_at = rest.find("[")
        if open_at < 0:
            names = [n + rest for n in names]
            break
        close_at = rest.index("]", open_at)  # balanced: _split_top checked
        prefix, body, rest = rest[:open_at], rest[open_at + 1 : close_at], rest[close_at + 1 :]
        numbers = _bracket(body, text)
        if len(names) * len(numbers) > MAX_HOSTS:
            raise InvalidPlatformError(f"host list {text!r} holds more than {MAX_HOSTS} names", value=text)
        names = [n + prefix + k for n in names for k in numbers]
    return names


def expand_hostlist(text: str) -> list[str]:
    """The node names a Slurm host list stands for, in its order.

    Parameters
    ----------
    text : str
        A host list: ``n[1-4],g[001-002],b1``.  Spaces around items are ignored;
        empty items (``n1,,n2``) are errors.

    Returns
    -------
    list of str
        The names, in the order the list gives them (duplicates kept, as Slurm's
        ``hostlist_create`` keeps them).

    Raises
    ------
    InvalidPlatformError
        An unclosed or nested bracket, a range that ends before it starts
        (``n[3-1]``), a bracket that is not numbers and ranges, an empty item, or
        more than :data:`MAX_HOSTS` names; the message quotes the list.

    Examples
    --------
    >>> expand_hostlist("n[1-3],g[001-002],b1")
    ['n1', 'n2', 'n3', 'g001', 'g002', 'b1']
    >>> expand_hostlist("r[1-2]n[1,3]")
    ['r1n1', 'r1n3', 'r2n1', 'r2n3']
    >>> expand_hostlist("n[3-1]")
    Traceback (most recent call last):
    ...
    clustersched.errors.InvalidPlatformError: host list 'n[3-1]': range '3-1' ends before it starts
    """
    if not isinstance(text, str):
        raise TypeError(f"host list == {text!r}, must be a str")
    names: list[str] = []
    for item in _split_top(text):
        item = item.strip()
        if not item:
            raise InvalidPlatformError(f"host list {text!r} has an empty item", value=text)
        names.extend(_expand_item(item, text))
        if len(names) > MAX_HOSTS:
            raise InvalidPlatformError(f"host list {text!r} holds more than {MAX_HOSTS} names", value=text)
    return names


def _ranges(numbers: list[int], width: int) -> str:
    parts = []
    i = 0
    while i < len(numbers):
        j = i
        while j + 1 < len(numbers) and numbers[j + 1] == numbers[j] + 1:
            j += 1
        lo, hi = str(numbers[i]).zfill(width), str(numbers[j]).zfill(width)
        parts.append(lo if i == j else f"{lo}-{hi}")
        i = j + 1
    return ",".join(parts)


def compress_hostlist(names: Iterable[str]) -> str:
    """The Slurm host list of a set of node names (the inverse of :func:`expand_hostlist`).

    Each name's trailing number is bracketed; names sharing the text before it
    (and the number's zero padding) form one group, written where its first
    name appears; a group's numbers are sorted, duplicates dropped, runs merged
    into ranges.  A group of one name is written without brackets (``b1``), as
    Slurm writes it.  A number without leading zero joins a padded group of its
    width (``g010`` with ``g001``), since the padding gives it back unchanged.

    Parameters
    ----------
    names : iterable of str
        Node names; none may be empty or hold ``[``, ``]`` or ``,``.

    Returns
    -------
    str
        The host list; ``""`` for no names.

    Examples
    --------
    >>> compress_hostlist(["n2", "g1", "n1"])
    'n[1-2],g1'
    >>> compress_hostlist(["g001", "g002", "g010", "n3", "n1", "login"])
    'g[001-002,010],n[1,3],login'
    >>> expand_hostlist(compress_hostlist(["n4", "n3", "n10"]))
    ['n3', 'n4', 'n10']
    """
    names = list(names)
    parsed: list[tuple[str, str | None]] = []
    padded: dict[str, set[int]] = {}  # prefix -> widths of its zero-padded numbers
    for name in names:
        if not isinstance(name, str) or not name or _FORBIDDEN & set(name) or name != name.strip():
            raise InvalidPlatformError(f"node name {name!r} cannot be written in a host list", value=name)
        match = _TRAILING_NUMBER.match(name)
        if match is None:
            parsed.append((name, None))
            continue
        prefix, digits = match.group(1), match.group(2)
        parsed.append((prefix, digits))
        if len(digits) > 1 and digits[0] == "0":
            padded.setdefault(prefix, set()).add(len(digits))
    groups: dict[tuple[str, int], set[int]] = {}  # (prefix, width; -1 for a name without number) -> numbers
    for prefix, digits in parsed:
        if digits is None:
            groups.setdefault((prefix, -1), set())
            continue
        width = len(digits) if len(digits) in padded.get(prefix, ()) else 0
        groups.setdefault((prefix, width), set()).add(int(digits))
    parts = []
    for (prefix, width), numbers in groups.items():
        if width < 0:
            parts.append(prefix)
        elif len(numbers) == 1:
            parts.append(prefix + str(next(iter(numbers))).zfill(width))
        else:
            parts.append(f"{prefix}[{_ranges(sorted(numbers), width)}]")
    return ",".join(parts)
