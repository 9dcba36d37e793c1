"""DFRS algorithms by name: the combinations of Table 1 and the naming scheme of RR-7659 §4.5.

A DFRS algorithm says what happens on three kinds of event (§4.4):

* on a job **submission**: nothing, Greedy, GreedyP, GreedyPM (§4.2) or MCB8
  (§4.3);
* on a job **completion** (the ``*`` of a name, "opportunistic"): nothing, or
  Greedy on the waiting jobs when Greedy/GreedyP/GreedyPM is used on
  submission, or MCB8 when MCB8 is;
* **periodically** (``per``): nothing, MCB8, or MCB8-stretch (``stretch-per``,
  §4.7);

then how CPU is shared once tasks are mapped (§4.6): ``opt=min`` (iterative
max-min yields) or ``opt=avg`` (the linear program (2), the highest average
yield with no yield below the max-min one); ``/stretch-per`` uses
``opt=max`` (iterative minimization of the maximum estimated stretch) or
``opt=avg`` (the lowest average estimated stretch with no job above the
optimized maximum).  ``minft=B`` / ``minvt=B`` (§4.3) keep running jobs of flow
time / virtual time below ``B`` seconds on their nodes whenever MCB8 runs.

Names are parts separated by ``/``: the submission policy followed by ``" *"``
when completions are handled, then ``per`` or ``stretch-per`` if any, then
``opt=...``, then ``minft=B`` or ``minvt=B`` if set, e.g.
``GreedyPM */per/opt=min/minvt=600`` or ``/per/opt=min``.
:func:`parse_algorithm` reads a name (``opt=`` may be omitted: ``min``, or
``max`` for ``/stretch-per``) and :attr:`DfrsAlgorithm.name` writes the
canonical one.  ``FCFS``, ``EASY`` and ``EASY-arrival`` name the batch baselines of §5.2 (see
:mod:`clustersched.dfrs.baselines`).

The registry
------------
Since the names are a grammar, the registry cannot list every valid name:
:data:`ALGORITHMS` lists the paper's (the 116 algorithms of its study,
Table 5, in canonical spelling and Table 1's order, each with its
:class:`DfrsAlgorithm`: a :class:`~clustersched._contract.Registry`), and
:func:`parse_algorithm` reads those and any other valid name.

Examples
--------
>>> a = parse_algorithm("GreedyPM */per/opt=min/minvt=600")
>>> a.on_submit, a.on_completion, a.periodic, a.opt, a.minvt
('GreedyPM', 'Greedy', 'MCB8', 'min', 600.0)
>>> a.name
'GreedyPM */per/opt=min/minvt=600'
>>> parse_algorithm("MCB8 *").name
'MCB8 */opt=min'
>>> len(ALGORITHMS), next(iter(ALGORITHMS)), a.name in ALGORITHMS, ALGORITHMS[a.name] == a
(116, 'Greedy */opt=avg', True, True)
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from .._contract import Registry

__all__ = [
    "ALGORITHMS",
    "BASELINES",
    "DEFAULT_PENALTY",
    "DEFAULT_PERIOD",
    "TABLE1",
    "TABLE2_ALGORITHMS",
    "DfrsAlgorithm",
    "baseline_name",
    "parse_algorithm",
]

#: The rescheduling penalty of §5.1: 5 minutes without progress after a resume or a migration (s).
#: Every default penalty in the library (simulate, the baselines, ``clustersched dfrs``, the
#: reproduction) is this one; it lives here, in a module without numpy, so that the CLI reads it.
DEFAULT_PENALTY = 300.0
#: The period of the periodic algorithms in §5.1: twice the penalty (s).
DEFAULT_PERIOD = 600.0
#: The batch baselines of §5.2 (whole nodes, exact run times by default), and EASY backfilling only at
#: arrival, a reading of §5.2's EASY (:mod:`clustersched.dfrs.baselines`).
BASELINES = ("FCFS", "EASY", "EASY-arrival")
#: Submission policies (§4.2, §4.3).
SUBMIT_POLICIES = ("Greedy", "GreedyP", "GreedyPM", "MCB8")
#: The 14 combinations of Table 1, by their name without options.
TABLE1 = (
    "Greedy *",
    "GreedyP *",
    "GreedyPM *",
    "Greedy/per",
    "GreedyP/per",
    "GreedyPM/per",
    "Greedy */per",
    "GreedyP */per",
    "GreedyPM */per",
    "MCB8 *",
    "MCB8/per",
    "MCB8 */per",
    "/per",
    "/stretch-per",
)
_PART = re.compile(r"^(Greedy|GreedyP|GreedyPM|MCB8)?\s*(\*)?$")
_OPTION = re.compile(r"^(opt|minft|minvt)=(.+)$")
#: A number of seconds in a name: ASCII digits only (``float`` would also read ``٦٠٠``, ``6_00`` or ``inf``).
_SECONDS = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", re.ASCII)


@dataclass(frozen=True)
class DfrsAlgorithm:
    """One DFRS algorithm (a row of Table 1 with its options).

    Attributes
    ----------
    on_submit : str or None
        ``"Greedy"``, ``"GreedyP"``, ``"GreedyPM"``, ``"MCB8"`` or None.
    opportunistic : bool
        Whether completions trigger a mapping (the ``*``).
    periodic : str or None
        ``"MCB8"`` (``per``), ``"MCB8-stretch"`` (``stretch-per``) or None.
    opt : str
        ``"min"`` or ``"avg"``; with MCB8-stretch ``"max"`` or ``"avg"``.
    minft, minvt : float or None
        Grace bounds of §4.3, seconds (at most one is set).
    """

    on_submit: str | None
    opportunistic: bool = False
    periodic: str | None = None
    opt: str = "min"
    minft: float | None = None
    minvt: float | None = None

    def __post_init__(self) -> None:
        if self.on_submit is not None and self.on_submit not in SUBMIT_POLICIES:
            raise ValueError(f"on_submit == {self.on_submit!r}, must be one of {SUBMIT_POLICIES} or None")
        if self.periodic not in (None, "MCB8", "MCB8-stretch"):
            raise ValueError(f"periodic == {self.periodic!r}, must be 'MCB8', 'MCB8-stretch' or None")
        combo = self.combination
        if combo not in TABLE1:
            raise ValueError(f"{combo!r} is not one of the combinations of Table 1 (RR-7659 §4.5): {', '.join(TABLE1)}")
        opts = ("max", "avg") if self.periodic == "MCB8-stretch" else ("min", "avg")
        if self.opt not in opts:
            raise ValueError(f"opt == {self.opt!r}, must be one of {opts} for {combo!r}")
        if self.minft is not None and self.minvt is not None:
            raise ValueError("minft and minvt cannot both be set")
        for option in ("minft", "minvt"):
            bound = getattr(self, option)
            if bound is None:
                continue
            if isinstance(bound, bool) or not isinstance(bound, (int, float)) or not math.isfinite(bound) or bound < 0:
                raise ValueError(f"{option} == {bound!r}, must be a finite number of seconds >= 0")
            if not self.uses_mcb8:
                raise ValueError(f"{option} limits the remapping MCB8 does, and {combo!r} never runs MCB8")
            object.__setattr__(self, option, float(bound))

    @property
    def on_completion(self) -> str | None:
        """What runs on a completion: ``"MCB8"``, ``"Greedy"`` or None (§4.5)."""
        if not self.opportunistic:
            return None
        return "MCB8" if self.on_submit == "MCB8" else "Greedy"

    @property
    def uses_mcb8(self) -> bool:
        """Whether MCB8 or MCB8-stretch runs at some event (so minft/minvt apply)."""
        return self.on_submit == "MCB8" or self.periodic is not None

    @property
    def combination(self) -> str:
        """The Table 1 row: the name without ``opt`` and grace bounds."""
        first = (self.on_submit or "") + (" *" if self.opportunistic else "")
        per = {None: "", "MCB8": "/per", "MCB8-stretch": "/stretch-per"}[self.periodic]
        return first + per

    @property
    def name(self) -> str:
        """The canonical name (§4.5)."""
        parts = [self.combination, f"opt={self.opt}"]
        for option in ("minft", "minvt"):
            bound = getattr(self, option)
            if bound is not None:
                parts.append(f"{option}={_seconds(bound)}")
        return "/".join(parts)

    def __str__(self) -> str:
        return self.name


def _seconds(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else repr(float(x))


def baseline_name(name: str) -> str | None:
    """The batch baseline ``name`` names (:data:`BASELINES`, by the library's one name rule, surrounding
    spaces ignored), or None when it names none.

    Examples
    --------
    >>> baseline_name(" easy_arrival "), baseline_name("GreedyPM */opt=min")
    ('EASY-arrival', None)
    """
    from .._checks import lookup  # not at import: the command line reads this module without numpy

    try:
        return lookup("policy", name.strip(), BASELINES)
    except ValueError:
        return None


def parse_algorithm(name: str) -> DfrsAlgorithm:
    """The algorithm a name denotes (module docstring); ValueError saying what is wrong.

    Reads the names of :data:`ALGORITHMS` and any other valid one, exactly as
    spelled (case matters; spaces around ``/`` and before ``*`` do not).
    The seconds of ``minft=`` / ``minvt=`` are written in ASCII digits
    (``600``, ``1.5e3``), never other scripts' digits, ``_`` or ``inf``.
    ``FCFS`` and ``EASY`` are not DFRS algorithms: use
    :func:`clustersched.dfrs.simulate`, which accepts them too.
    """
    if not isinstance(name, str):
        raise TypeError(f"algorithm name == {name!r}, must be a str")
    parts = name.strip().split("/")
    head = _PART.match(parts[0].strip())
    if head is None:
        raise ValueError(
            f"algorithm {name!r}: first part {parts[0]!r} must be empty or one of "
            f"{', '.join(SUBMIT_POLICIES)}, optionally followed by ' *'"
        )
    periodic: str | None = None
    options: dict[str, str] = {}
    for k, part in enumerate(p.strip() for p in parts[1:]):
        if part in ("per", "stretch-per"):
            if k != 0:
                raise ValueError(f"algorithm {name!r}: {part!r} must come right after the first part")
            periodic = "MCB8" if part == "per" else "MCB8-stretch"
            continue
        match = _OPTION.match(part)
        if match is None:
            raise ValueError(
                f"algorithm {name!r}: part {part!r} must be 'per', 'stretch-per', 'opt=...', 'minft=S' or 'minvt=S'"
            )
        key, value = match.groups()
        if key in options:
            raise ValueError(f"algorithm {name!r} sets {key} twice")
        options[key] = value
    bounds: dict[str, float] = {}
    for key in ("minft", "minvt"):
        if key in options:
            if _SECONDS.fullmatch(options[key]) is None:
                raise ValueError(
                    f"algorithm {name!r}: {key}={options[key]!r} is not a number of seconds "
                    "(ASCII digits, e.g. 600 or 1.5e3)"
                )
            bounds[key] = float(options[key])
    default_opt = "max" if periodic == "MCB8-stretch" else "min"
    try:
        return DfrsAlgorithm(
            on_submit=head.group(1),
            opportunistic=head.group(2) is not None,
            periodic=periodic,
            opt=options.get("opt", default_opt),
            **bounds,
        )
    except ValueError as exc:
        raise ValueError(f"algorithm {name!r}: {exc}") from None


def _paper_algorithms() -> Registry[DfrsAlgorithm]:
    """The 116 algorithms of §6.1 (Table 5): the 3 purely greedy combinations with
    opt=avg/min, and the 11 others with opt=avg/min (max for /stretch-per) times no bound,
    minft=300/600, minvt=300/600."""
    names = []
    for combo in TABLE1:
        a = parse_algorithm(combo)
        opts = ("avg", "max") if a.periodic == "MCB8-stretch" else ("avg", "min")
        bounds = [{}] if not a.uses_mcb8 else [{}, {"minft": 300}, {"minft": 600}, {"minvt": 300}, {"minvt": 600}]
        for opt in opts:
            for b in bounds:
                algorithm = DfrsAlgorithm(a.on_submit, a.opportunistic, a.periodic, opt, **b)
                names.append((algorithm.name, algorithm))
    return Registry("algorithm", dict(names))


#: Every algorithm of RR-7659's study (Table 5): 116 canonical names, each with its :class:`DfrsAlgorithm`
#: (a :class:`~clustersched._contract.Registry`); :func:`parse_algorithm` reads these and any other valid name.
ALGORITHMS = _paper_algorithms()

#: The rows of Table 2, in its order (FCFS and EASY first).
TABLE2_ALGORITHMS = (
    "FCFS",
    "EASY",
    "Greedy */opt=min",
    "GreedyP */opt=min",
    "GreedyPM */opt=min",
    "Greedy/per/opt=min",
    "GreedyP/per/opt=min",
    "GreedyPM/per/opt=min",
    "Greedy */per/opt=min",
    "GreedyP */per/opt=min",
    "GreedyPM */per/opt=min",
    "GreedyP/per/opt=min/minvt=600",
    "GreedyPM/per/opt=min/minvt=600",
    "GreedyP */per/opt=min/minvt=600",
    "GreedyPM */per/opt=min/minvt=600",
    "MCB8 */opt=min/minvt=600",
    "MCB8/per/opt=min/minvt=600",
    "MCB8 */per/opt=min/minvt=600",
    "/per/opt=min/minvt=600",
    "/stretch-per/opt=max/minvt=600",
)
