"""The human-readable report: profile summary, then ranked findings with evidence, expected speedup and patch.

Every text that comes from the repo or the capture goes through :func:`~advisor.printable.console_text`: rich
markup in it is escaped and control characters are made visible, so a source line cannot restyle the report or
drive the terminal.
"""

from __future__ import annotations

from typing import Any, Mapping

from rich.console import Console
from rich.syntax import Syntax

from ..measure import FIGURE_NAMES
from ..model import Confidence, Finding, Report
from ..printable import console_text, printable

CONFIDENCE_STYLE = {Confidence.CONFIRMED: "bold red", Confidence.LIKELY: "yellow", Confidence.POSSIBLE: "dim"}


def verification_line(verification: Mapping[str, Any]) -> str:
    """A saved ``advisor verify`` measurement in one line: "faster: 1.32x (95% interval 1.20x-1.41x over 8 rounds,
    wall time per step); predicted 1.00x-1.43x, inside (error 8%); losses match ..."."""
    predicted = verification.get("predicted")
    expected = f"predicted {predicted['low']:.2f}x-{predicted['high']:.2f}x" if predicted else "no prediction"
    if verification.get("error"):
        return f"FAILED: {verification['error'].splitlines()[-1]}; {expected}"
    measured, wall = verification["measured_speedup"], verification["wall_speedup"]
    # The prediction is of wall time: when the verdict is on CPU time, the wall figure is shown beside it.
    against = "" if measured["figure"] == wall["figure"] else f"; {_speedup_text(wall)}"
    where = "" if verification.get("inside") is None else (
        f", {'inside' if verification['inside'] else 'OUTSIDE'} (error {verification['prediction_error']:.0%})")
    parity = verification.get("parity") or {}
    losses = ("; losses not compared (none logged)" if parity.get("ok") is None else
              f"; losses match (max relative difference {parity['max_rel_loss_diff']:.1e})" if parity["ok"]
              else f"; LOSSES DIVERGE (max relative difference {parity['max_rel_loss_diff']:.2%})")
    never_ran = " (its code never ran)" if verification.get("code_ran") is False else ""
    return f"{measured['verdict']}{never_ran}: {_speedup_text(measured)}{against}; {expected}{where}{losses}"


def _speedup_text(estimate: Mapping[str, Any]) -> str:
    interval = (f"{estimate['confidence']:.0%} interval {estimate['low']:.2f}x-{estimate['high']:.2f}x"
                if estimate["low"] is not None else f"too few rounds for a {estimate['confidence']:.0%} interval")
    figure = FIGURE_NAMES[estimate["figure"]]
    return f"{estimate['median']:.2f}x ({interval} over {estimate['rounds']} rounds, {figure})"


def render_finding(console: Console, finding: Finding, show_diff: bool,
                   verification: Mapping[str, Any] | None = None) -> None:
    style = CONFIDENCE_STYLE[finding.confidence]
    console.print(f"[bold]{console_text(finding.location.display)}[/]: [bold]{finding.code}[/] "
                  f"[{style}]{finding.confidence.value}[/] {console_text(finding.message)}", highlight=False)
    for evidence in finding.evidence:
        console.print(f"    [cyan]{evidence.kind}:[/] {console_text(evidence.message)}", highlight=False)
    if finding.speedup is not None:
        s = finding.speedup
        console.print(f"    [green]expected speedup:[/] {s.low:.2f}x-{s.high:.2f}x ({console_text(s.basis)})",
                      highlight=False)
    if verification is not None:
        others = [i for i in verification["patches"] if i != finding.id]
        label = console_text(f"verified with [{', '.join(others)}]") if others else "verified alone"
        console.print(f"    [green]{label}:[/] {console_text(verification_line(verification))}", highlight=False)
    patch = finding.patch
    if patch is not None:
        kind = "safe fix" if patch.applicability.value == "safe" else "unsafe fix"
        # The id is escaped too: "[d3adb33f]" would read as markup and vanish.
        console.print(f"    [magenta]{kind}[/] {console_text(f'[{finding.id}]')}: {console_text(patch.description)}",
                      highlight=False)
        if patch.why_unsafe:
            console.print(f"    [magenta]why unsafe:[/] {console_text(patch.why_unsafe)}", highlight=False)
        if show_diff:
            console.print(Syntax(printable(patch.shown_diff.rstrip("\n")), "diff", theme="ansi_dark",
                                 background_color="default"))
    console.print()


def render_report(report: Report, console: Console, show_diff: bool = True) -> None:
    if report.profile is not None:
        from .profile_summary import render_profile_summary

        render_profile_summary(report.profile, console)
        console.print()
    for finding in report.findings:
        render_finding(console, finding, show_diff, report.verifications.get(finding.id))
    for warning in report.warnings:
        console.print(f"[yellow]warning:[/] {console_text(warning)}", highlight=False)
    console.print(summary_line(report), highlight=False, markup=False)


def summary_line(report: Report) -> str:
    count = len(report.findings)
    fixable = sum(1 for f in report.findings if f.patch is not None)
    if report.files_seen == 0:
        return "Nothing to analyze: no Python files or notebooks found."
    scope = (f"{report.files_analyzed} of {report.files_seen} Python files and notebooks analysed (those using "
             "TensorFlow or Keras and the modules they import)")
    if report.files_excluded:
        scope += (f" ({report.files_excluded} test file{'s' * (report.files_excluded != 1)} left out by the `exclude` "
                  "patterns; `exclude = []` in [tool.advisor] analyzes them)")
    head = "No findings" if count == 0 else f"{count} finding{'s' * (count != 1)} ({fixable} with a fix)"
    mode = ("profile-gated" if report.profile is not None
            else "static analysis only: give a profile LOGDIR to confirm findings and size their speedups")
    hidden = f"; {report.hidden} contradicted by the profile hidden (--show-all)" if report.hidden else ""
    if report.off_training:
        hidden += f"; {report.off_training} on code no training run reaches hidden (--show-all)"
    if report.less_sure:
        hidden += f"; {report.less_sure} less sure than min-confidence hidden (--show-all)"
    return f"{head}; {scope}; {mode}{hidden}."
