"""MkDocs hook: the command-line reference (docs/cli.md), written from the parser itself.

``climbrl.cli.build_parser()`` is the parser ``climbrl`` runs; each subcommand gets its
description, its usage and a table of its options (flags, default, help), so the page can
never disagree with ``climbrl <command> --help``. ``climbrl train`` lists the trainer's
settings only where torch (the ``train`` extra) is installed; without it the build stops
with a warning saying so rather than publish a page without them.
"""

from __future__ import annotations

import argparse
import logging

PAGE = "cli.md"
MARKER = "<!-- the subcommands are written here by docs/hooks/cli_reference.py -->"
#: the width usage lines are wrapped to, whatever the terminal of the build
USAGE_WIDTH = 88
MARKDOWN_SPECIALS = "\\`*_[]|"
HTML_SPECIALS = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}

log = logging.getLogger("mkdocs.hooks.cli_reference")


def _escape(text: str) -> str:
    """Plain help text as Markdown: every character Markdown or HTML would read escaped."""
    text = " ".join(text.split())
    return "".join(f"\\{c}" if c in MARKDOWN_SPECIALS else HTML_SPECIALS.get(c, c)
                   for c in text)


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:  # argparse keeps its subcommands in a private action
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _helps(parser: argparse.ArgumentParser) -> dict[str, str]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return {choice.dest: choice.help or "" for choice in action._choices_actions}
    return {}


def _flags(action: argparse.Action) -> str:
    names = action.option_strings or [action.dest]
    metavar = ""
    if action.nargs != 0:
        metavar = action.metavar or (action.dest.upper() if action.option_strings else "")
        if isinstance(metavar, tuple):
            metavar = " ".join(metavar)
        if action.choices is not None and not action.metavar:
            metavar = "{" + ",".join(map(str, action.choices)) + "}"
    return ", ".join(f"`{n}{' ' + metavar if metavar and action.option_strings else ''}`"
                     for n in names)


def _default(action: argparse.Action) -> str:
    if action.nargs == 0 or any(action.default is v for v in (None, argparse.SUPPRESS, False)):
        return ""
    if action.default == []:
        return ""
    return f"`{action.default}`"


def command_markdown(name: str, parser: argparse.ArgumentParser, summary: str) -> str:
    """One subcommand's section: summary, description, usage, options, epilog."""
    parser.formatter_class = lambda prog: argparse.HelpFormatter(prog, width=USAGE_WIDTH)
    lines = [f"## `climbrl {name}`", ""]
    if summary:
        lines += [_escape(summary[0].upper() + summary[1:]) + ".", ""]
    if parser.description:
        lines += [_escape(parser.description), ""]
    lines += ["```text", parser.format_usage().strip(), "```", ""]
    rows = [a for a in parser._actions if not isinstance(a, argparse._HelpAction)]
    if rows:
        lines += ["| option | default | meaning |", "|---|---|---|"]
        for action in rows:
            required = " (required)" if action.required and action.option_strings else ""
            lines.append(f"| {_flags(action)} | {_default(action)} | "
                         f"{_escape(action.help or '')}{required} |")
        lines.append("")
    if parser.epilog:
        lines += [_escape(parser.epilog), ""]
    return "\n".join(lines)


def reference_markdown() -> str:
    """Every subcommand of ``climbrl``, in the parser's order."""
    from climbrl.cli import build_parser

    try:
        import climbrl.training.dmc  # noqa: F401  (the settings of climbrl train)
    except ModuleNotFoundError as err:
        log.warning("the command-line reference lists climbrl train's settings only with the "
                    "train extra installed (%s is missing: pip install -e '.[train]')", err.name)
    parser = build_parser()
    helps = _helps(parser)
    return "\n".join(command_markdown(name, sub, helps.get(name, ""))
                     for name, sub in _subcommands(parser).items())


def on_page_markdown(markdown, page, config, files):
    if page.file.src_uri != PAGE:
        return markdown
    if MARKER not in markdown:
        log.warning("%s has lost its marker line %r", PAGE, MARKER)
        return markdown
    return markdown.replace(MARKER, reference_markdown())
