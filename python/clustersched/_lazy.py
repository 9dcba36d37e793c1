"""Lazy re-exports for the package ``__init__`` modules.

``import clustersched`` (which ``import clustersched.cli`` implies) should not
pay for numpy, networkx or the campaign runner before it knows it needs them:
the ``clustersched`` command starts in well under 0.1 s, and a script that
only reads a trace never imports networkx.  A package therefore declares
where each public name lives, and :func:`lazy_exports` gives it a
module-level ``__getattr__`` (PEP 562) that imports the defining module on
first access and caches the value in the package namespace.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import types
from collections.abc import Callable, Iterable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str, exports: Mapping[str, str], public: Iterable[str] = ()
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package``, re-exporting ``exports`` on first use.

    Parameters
    ----------
    package : str
        The package's ``__name__``.
    exports : mapping
        Public name -> ``".module"`` (relative to ``package``) that defines a
        name of that spelling, or ``".module:other"`` for a name re-exported
        under a new spelling.  Any other name that is a submodule of
        ``package`` (``clustersched.ptg``, ``clustersched.workload``) is
        imported when asked for, as an eager ``import`` used to make it an
        attribute.
    public : iterable of str
        Names ``dir()`` lists besides the exports (the package's ``__all__``).

    ``dir(package)`` lists the public API only: the exports, ``public``, the
    package's ``__all__``, its public submodules already imported
    (``clustersched.batch``) and the module's dunder attributes
    (``__version__``, ``__doc__`` ...); never the helpers its ``__init__``
    imports for itself (``TYPE_CHECKING``, ``lazy_exports``) nor private
    modules (``_core``).
    """
    module_object = sys.modules[package]
    namespace = module_object.__dict__
    listed = sorted(set(exports) | set(public))
    # A name exported from the submodule of the same name (``ptg.selfish``, the
    # function, from ``ptg/selfish.py``): the import system binds the submodule
    # to the package attribute whenever anyone imports it, which would hide the
    # export; an eager ``from .selfish import selfish`` rebound it, so do the same.
    shadowed = frozenset(n for n, t in exports.items() if t.partition(":")[0] == f".{n}")
    if shadowed:

        class _Package(types.ModuleType):
            def __setattr__(self, name: str, value: Any) -> None:
                if name in shadowed and isinstance(value, types.ModuleType):
                    return
                super().__setattr__(name, value)

        module_object.__class__ = _Package

    def __getattr__(name: str) -> Any:
        target = exports.get(name)
        if target is not None:
            module, _, attribute = target.partition(":")
            value = getattr(importlib.import_module(module, package), attribute or name)
        elif not name.startswith("__") and importlib.util.find_spec(f"{package}.{name}") is not None:
            value = importlib.import_module(f"{package}.{name}")
        else:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        names = set(listed) | set(namespace.get("__all__", ()))
        for name, value in namespace.items():
            if name.startswith("__") and name.endswith("__"):
                names.add(name)
            elif (
                not name.startswith("_")
                and isinstance(value, types.ModuleType)
                and value.__name__ == f"{package}.{name}"
            ):
                names.add(name)  # a public submodule, bound by its import
        return sorted(names)

    return __getattr__, __dir__
