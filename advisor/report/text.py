"""The human-readable report: profile summary, then ranked findings with evidence, expected speedup and patch."""

from __future__ import annotations

from typing import Any, Mapping

from rich.console import Console
from rich.markup import escape
from rich.syntax import Syntax

from ..model import Confidence, Finding, Report

CONFIDENCE_STYLE = {Confidence.CONFIRMED: "bold red", Confidence.LIKELY: "yellow", Confidence.POSSIBLE: "dim"}


def verification_line(verification: Mapping[str, Any]) -> str:
    """``advisor verify``'s result in one line: "predicted 1.22x-1.43x, measured 1.62x (...)"."""
    patches = ", ".join(verification["patches"])
    predicted = verification.get("predicted")
    head = f"predicted {predicted['low']:.2f}x-{predicted['high']:.2f}x, " if predicted else ""
    if verification.get("error"):
        return f"{head}verification FAILED with fixes [{patches}]: {verification['error'].splitlines()[-1]}"
    m = verification["measured_speedup"]
    where = "" if verification.get("inside") is None else (
        ", inside the predicted range" if verification["inside"] else ", OUTSIDE the predicted range")
    parity = verification.get("parity") or {}
    losses = ("" if parity.get("ok") is None else "; losses match" if parity["ok"]
              else f"; LOSSES DIVERGE (max relative difference {parity['max_rel_loss_diff']:.2%})")
    return (f"{head}measured {m['median']:.2f}x ({m['min']:.2f}x-{m['max']:.2f}x over "
            f"{verification['repeats']} paired runs) with fixes [{patches}]{where}{losses}")


def render_finding(console: Console, finding: Finding, show_diff: bool,
                   verification: Mapping[str, Any] | None = None) -> None:
    style = CONFIDENCE_STYLE[finding.confidence]
    console.print(f"[bold]{escape(finding.location.display)}[/]: [bold]{finding.code}[/] "
                  f"[{style}]{finding.confidence.value}[/] {escape(finding.message)}", highlight=False)
    for evidence in finding.evidence:
        console.print(f"    [cyan]{evidence.kind}:[/] {escape(evidence.message)}", highlight=False)
    if finding.speedup is not None:
        s = finding.speedup
        console.print(f"    [green]expected speedup:[/] {s.low:.2f}x-{s.high:.2f}x ({escape(s.basis)})",
                      highlight=False)
    if verification is not None:
        console.print(f"    [green]verified:[/] {escape(verification_line(verification))}", highlight=False)
    patch = finding.patch
    if patch is not None:
        kind = "safe fix" if patch.applicability.value == "safe" else "unsafe fix"
        console.print(f"    [magenta]{kind}[/] [{finding.id}]: {escape(patch.description)}", highlight=False)
        if patch.why_unsafe:
            console.print(f"    [magenta]why unsafe:[/] {escape(patch.why_unsafe)}", highlight=False)
        if show_diff:
            console.print(Syntax(patch.diff.rstrip("\n"), "diff", theme="ansi_dark", background_color="default"))
    console.print()


def render_report(report: Report, console: Console, show_diff: bool = True) -> None:
    if report.profile is not None:
        from .profile_summary import render_profile_summary

        render_profile_summary(report.profile, console)
        console.print()
    for finding in report.findings:
        render_finding(console, finding, show_diff, report.verifications.get(finding.id))
    for warning in report.warnings:
        console.print(f"[yellow]warning:[/] {escape(warning)}", highlight=False)
    console.print(summary_line(report), highlight=False, markup=False)


def summary_line(report: Report) -> str:
    count = len(report.findings)
    fixable = sum(1 for f in report.findings if f.patch is not None)
    if report.files_seen == 0:
        return "Nothing to analyze: no Python files found."
    scope = f"{report.files_analyzed} of {report.files_seen} Python files use TensorFlow or Keras"
    if report.files_excluded:
        scope += (f" ({report.files_excluded} test file{'s' * (report.files_excluded != 1)} left out by the `exclude` "
                  "patterns; `exclude = []` in [tool.advisor] analyzes them)")
    head = "No findings" if count == 0 else f"{count} finding{'s' * (count != 1)} ({fixable} with a fix)"
    mode = ("profile-gated" if report.profile is not None
            else "static analysis only: give a profile LOGDIR to confirm findings and size their speedups")
    hidden = f"; {report.hidden} contradicted by the profile hidden (--show-all)" if report.hidden else ""
    return f"{head}; {scope}; {mode}{hidden}."
