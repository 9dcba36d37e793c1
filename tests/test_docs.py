"""Docs that run (issue 21, deliverable 5): every command and snippet of README.md and docs/*.md.

* The README's command summary is generated from the argparse parsers
  (:func:`command_summary`) and must equal them: ``python tests/test_docs.py``
  rewrites it after a change of options.
* Every ``clustersched ...`` command of a ```` ```sh ```` block, and of a code span
  in the text, parses as written, and the options the README uses are in its summary.
* Every ```` ```sh ```` block runs, its commands in order, in a fresh folder,
  through ``clustersched.cli.main`` (what the installed ``clustersched`` script
  calls), with the substitutions of :data:`SMALLER` so that a long study runs at a
  small scale; ``python docs/X.py`` runs as a process with ``--scale small``.
  A command ends with status 0 unless :data:`STATUS` says another (as its page
  does).  What is not run is in :data:`NOT_RUN`, with the reason.
* Every ```` ```python ```` block runs: the blocks of one page in order, in one
  fresh interpreter (a page's later blocks use the names of its earlier ones), in
  a fresh folder; an error names the page and the line.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

from support import SLURM_DIR, SWF_DIR

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

#: The comment that precedes the README's generated command summary.
SUMMARY_MARK = "<!-- the command summary: generated from the parsers by `python tests/test_docs.py` -->"
#: Width of the summary's lines.
WIDTH = 100

#: How a documented command is run in the tests, in this order (a study of minutes or hours at the
#: scale of seconds; the commands are parsed as written first, by test_every_documented_command_parses):
SMALLER: list[tuple[str, str]] = [
    ("--scale full", "--scale small"),  # a paper's whole study: its small scale
    ("--scale medium", "--scale small"),
    ("--workers 2", "--workers 1"),  # one process: the CI's cores are shared
    ("--dask tcp://host:8786", "--workers 1"),  # no Dask scheduler in CI (tests/test_campaign.py starts one)
    ("../shared/data/swf", os.fspath(SWF_DIR)),  # the traces beside the checkout, seen from the test's folder
    ("../shared/data/slurm", os.fspath(SLURM_DIR)),  # the Slurm files beside the checkout
]
#: Documented commands that end with another status than 0, as their pages say (README, "Command line").
STATUS = {
    # docs/reproduce-qlse.md: greedy best fit finds no mapping of this case (QLSE does)
    "clustersched qlse --tasks 40 --lans 12 --hosts 8 --seed 3 --algorithm greedy --bandwidth dedicated --json": 1,
}
#: Commands not run, by how they start, and why.
NOT_RUN = {
    "pip install": "installs the package: the tests run on the installed package",
    "python -m pytest": "the test suite itself",
}


# -- the README's command summary, from the parsers ------------------------------------------------------------------
def _commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    """(path, parser) of every sub-command that runs something, in the parsers' order."""
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        yield path, parser
    for action in subs:
        for name, sub in action.choices.items():
            yield from _commands(sub, (*path, name))


def _value(action: argparse.Action) -> str:
    """An option's value in the summary: its choices ``a|b|c`` when they are few and short, else its metavar."""
    choices = list(action.choices) if action.choices is not None else []
    if choices and len(choices) <= 8 and len("|".join(choices)) <= 48:
        return "|".join(choices)
    return action.metavar or action.dest.upper()


def _token(action: argparse.Action) -> str:
    if not action.option_strings:
        return action.metavar or action.dest
    name = max(action.option_strings, key=len)
    return name if action.nargs == 0 else f"{name} {_value(action)}"


def _usage(path: tuple[str, ...], parser: argparse.ArgumentParser) -> list[str]:
    """The tokens of one command's line: positionals first, then the options in their order, a
    mutually exclusive group as ``[A | B]``."""
    groups = {id(a): g for g in parser._mutually_exclusive_groups for a in g._group_actions}
    positional, options, seen = [], [], set()
    for action in parser._actions:
        if isinstance(action, (argparse._HelpAction, argparse._VersionAction)):
            continue
        if not action.option_strings:
            positional.append(f"[{_token(action)}]" if action.nargs == "?" else _token(action))
            continue
        group = groups.get(id(action))
        if group is not None:
            if id(group) not in seen:
                seen.add(id(group))
                text = " | ".join(_token(a) for a in group._group_actions)
                options.append(text if group.required else f"[{text}]")
            continue
        options.append(_token(action) if action.required else f"[{_token(action)}]")
    return [f"clustersched {' '.join(path)}", *positional, *options]


def command_summary() -> str:
    """The README's command summary: one usage per sub-command, wrapped at :data:`WIDTH` columns."""
    from clustersched.cli import _parser

    lines = []
    for path, parser in _commands(_parser()):
        tokens = _usage(path, parser)
        indent = " " * (len(tokens[0]) + 1)
        line = tokens[0]
        for token in tokens[1:]:
            if len(line) + 1 + len(token) > WIDTH and line.strip() != tokens[0]:
                lines.append(line)
                line = indent + token
            else:
                line += " " + token
        lines.append(line)
    return "\n".join(lines) + "\n"


# -- the blocks of the pages -----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Block:
    page: Path
    line: int  # of the block's first line of code, 1-based
    lang: str
    text: str
    after: str  # the page's text just before the fence (the summary's mark)

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def blocks(page: Path) -> list[Block]:
    found, lines, i = [], page.read_text().splitlines(), 0
    while i < len(lines):
        match = re.fullmatch(r"```(\w*)\s*", lines[i])
        if match is None:
            i += 1
            continue
        end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
        before = next((lines[j] for j in range(i - 1, -1, -1) if lines[j].strip()), "")
        found.append(Block(page, i + 2, match.group(1), "\n".join(lines[i + 1 : end]) + "\n", before))
        i = end + 1
    return found


ALL = [b for page in PAGES for b in blocks(page)]
SH = [b for b in ALL if b.lang == "sh" and b.after != SUMMARY_MARK]
PYTHON = [b for b in ALL if b.lang == "python"]


def commands(block: Block) -> list[list[str]]:
    """The commands of a sh block: continued lines joined, comments dropped, ``a && b`` as two."""
    text = block.text.replace("\\\n", " ")
    found = []
    for line in text.splitlines():
        words = shlex.split(line, comments=True)
        while words:
            cut = words.index("&&") if "&&" in words else len(words)
            found.append(words[:cut])
            words = words[cut + 1 :]
    return found


def _skipped(argv: list[str]) -> str | None:
    text = " ".join(argv)
    return next((why for start, why in NOT_RUN.items() if text.startswith(start)), None)


def smaller(argv: list[str]) -> list[str]:
    """A documented command as the tests run it (:data:`SMALLER`; a reproduction without a scale or a
    number of workers gets ``--scale small`` and ``--workers 1``, and no progress bar)."""
    text = shlex.join(argv)
    for old, new in SMALLER:
        text = text.replace(old, new)
    argv = shlex.split(text)
    if argv[:2] == ["clustersched", "reproduce"]:
        if "--scale" not in argv:
            argv += ["--scale", "small"]
        if "--workers" not in argv and "--dask" not in argv:
            argv += ["--workers", "1"]
        argv.append("--no-progress")
    if argv[:1] == ["python"] and argv[1].startswith("docs/"):
        argv += ["--scale", "small"]
    return argv


# -- the tests -------------------------------------------------------------------------------------------------------
def test_the_readme_summary_is_the_parsers():
    summary = [b for b in blocks(ROOT / "README.md") if b.after == SUMMARY_MARK]
    assert len(summary) == 1, f"README.md: one ```sh block after {SUMMARY_MARK!r}"
    assert summary[0].text == command_summary(), "the options changed: run python tests/test_docs.py"


def test_the_readme_summary_lists_the_options_the_readme_uses():
    text = command_summary()
    for block in blocks(ROOT / "README.md"):
        for argv in commands(block) if block.lang == "sh" and block.after != SUMMARY_MARK else []:
            if argv[:1] != ["clustersched"]:
                continue
            path = argv[1:3] if argv[1] == "reproduce" else argv[1:2]
            usage = _summary_of(text, path)
            for word in argv:
                if word.startswith("--"):
                    assert word in usage.split() or f"[{word}" in usage, (block.where, " ".join(path), word)
    # the options the issue found missing
    for path, option in [
        ("qlse", "--bandwidth"),
        ("scrap", "--heterogeneity"),
        ("scrap", "--min-speed"),
        ("scrap", "--costs"),
        ("dfrs", "--out"),
        ("dfrs", "--node-memory"),
        ("compare", "--oversized"),
        ("simulate", "--format"),
        ("simulate", "--drop-invalid"),
        ("compare", "--drop-invalid"),
        ("dfrs", "--drop-invalid"),
    ]:
        assert f"[{option}" in _summary_of(text, path.split()), (path, option)


def _summary_of(text: str, path: list[str]) -> str:
    """One command's usage in the summary, its lines joined."""
    head = "clustersched " + " ".join(path) + " "
    lines = text.splitlines()
    i = next(k for k, line in enumerate(lines) if line.startswith(head))
    usage = [lines[i]]
    for line in lines[i + 1 :]:
        if not line.startswith(" "):
            break
        usage.append(line.strip())
    return " ".join(usage)


@pytest.mark.parametrize(
    "argv", [argv for b in SH for argv in commands(b) if argv[:1] == ["clustersched"]], ids=shlex.join
)
def test_every_documented_command_parses(argv):
    from clustersched.cli import _parser

    args = _parser().parse_args(argv[1:])
    assert callable(args.run)


def inline_commands(page: Path) -> list[list[str]]:
    """The ``clustersched ...`` commands in the text's code spans (fenced blocks left out), up to a pipe;
    spans with a placeholder for the command itself (``COMMAND``, ``PAPER``) or quoting output are skipped."""
    text = re.sub(r"(?ms)^```.*?^```", "", page.read_text())
    found = []
    for span in re.findall(r"`(clustersched [^`]*)`", text):
        words = shlex.split(span.split("|")[0].replace("\n", " "))
        if {"COMMAND", "PAPER", "error:"} & set(words) or any(w.endswith(":") for w in words[:2]):
            continue
        found.append(words)
    return found


@pytest.mark.parametrize(
    "argv", sorted({tuple(argv) for page in PAGES for argv in inline_commands(page)}), ids=shlex.join
)
def test_every_command_in_the_text_parses(argv):
    from clustersched.cli import _parser

    if "--help" in argv:
        with pytest.raises(SystemExit) as stop:
            _parser().parse_args(list(argv[1:]))
        assert stop.value.code == 0
        return
    assert callable(_parser().parse_args(list(argv[1:])).run)


def _slow(block: Block) -> bool:
    return any("reproduce" in argv or argv[:1] == ["python"] for argv in commands(block))


@pytest.mark.parametrize(
    "block", [pytest.param(b, marks=pytest.mark.slow) if _slow(b) else b for b in SH], ids=lambda b: b.where
)
def test_every_sh_block_runs(block, tmp_path, monkeypatch, capsys):
    from clustersched.cli import main

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CLUSTERSCHED_TRACES", raising=False)
    ran = 0
    for argv in commands(block):
        expected = STATUS.get(shlex.join(argv), 0)
        if _skipped(argv):
            continue
        if "../shared/data/swf" in " ".join(argv) and not SWF_DIR.is_dir():
            pytest.skip(f"{SWF_DIR} not found")
        if "../shared/data/slurm" in " ".join(argv) and not SLURM_DIR.is_dir():
            pytest.skip(f"{SLURM_DIR} not found")
        argv = smaller(argv)
        if argv[0] == "clustersched":
            status = main(argv[1:])
            captured = capsys.readouterr()
            assert status == expected, f"{block.where}: {shlex.join(argv)}: status {status}\n{captured.err}"
        elif argv[0] == "python":
            # the installed package, as a reader has it (the source tree holds no compiled module)
            process = subprocess.run(
                [sys.executable, os.fspath(ROOT / argv[1]), *argv[2:]], capture_output=True, text=True, timeout=600
            )
            assert process.returncode == 0, f"{block.where}: {shlex.join(argv)}\n{process.stderr[-3000:]}"
        else:
            raise AssertionError(f"{block.where}: no rule to run {shlex.join(argv)} (see NOT_RUN)")
        ran += 1
    assert ran or all(_skipped(argv) for argv in commands(block))


PYTHON_PAGES = sorted({b.page for b in PYTHON})

RUNNER = textwrap.dedent("""
    import json, sys
    namespace = {"__name__": "__main__"}
    for where, line, text in json.load(open(sys.argv[1])):
        # blank lines before the code: a traceback names the page's own line numbers
        exec(compile("\\n" * (line - 1) + text, where, "exec"), namespace)
    """)


@pytest.mark.parametrize(
    "page",
    [pytest.param(p, marks=pytest.mark.slow) for p in PYTHON_PAGES],
    ids=lambda p: os.fspath(p.relative_to(ROOT)),
)
def test_the_python_blocks_of_a_page_run(page, tmp_path):
    import json

    snippets = [(os.fspath(b.page.relative_to(ROOT)), b.line, b.text) for b in PYTHON if b.page == page]
    (tmp_path / "blocks.json").write_text(json.dumps(snippets))
    (tmp_path / "run_blocks.py").write_text(RUNNER)
    env = {**os.environ, "MPLBACKEND": "Agg"}  # the installed package, as a reader has it
    work = tmp_path / "work"
    work.mkdir()
    process = subprocess.run(
        [sys.executable, os.fspath(tmp_path / "run_blocks.py"), os.fspath(tmp_path / "blocks.json")],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert process.returncode == 0, process.stderr[-4000:]


def test_every_block_is_run_or_named():
    """A block of another language would be silently skipped: only sh, python and plain (text) blocks."""
    for block in ALL:
        assert block.lang in ("sh", "python", ""), f"{block.where}: ```{block.lang} is run by no test"


def test_no_docs_script_is_left_out():
    """Every docs/*.py is run by a documented command (at --scale small)."""
    run = {argv[1] for b in SH for argv in commands(b) if argv[:1] == ["python"]}
    assert {f"docs/{p.name}" for p in (ROOT / "docs").glob("*.py")} <= run


if __name__ == "__main__":
    # python tests/test_docs.py: writes the command summary into README.md
    readme = ROOT / "README.md"
    text = readme.read_text()
    start = text.index(SUMMARY_MARK + "\n```sh\n") + len(SUMMARY_MARK + "\n```sh\n")
    end = text.index("```\n", start)
    readme.write_text(text[:start] + command_summary() + text[end:])
    print(f"wrote the command summary of {readme}")
