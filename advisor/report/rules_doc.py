"""Rule documentation, generated from each rule's own metadata and examples."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.syntax import Syntax
from rich.table import Table

from ..rule import Rule, all_rules


def rule_json(rule: type[Rule]) -> dict[str, Any]:
    return {
        "code": rule.code,
        "name": rule.name,
        "title": rule.title,
        "rationale": rule.rationale,
        "fix": rule.fix,
        "fix_applicability": rule.fix_applicability.value if rule.fix else None,
        "why_unsafe": rule.why_unsafe,
        "speedup_model": rule.speedup_model,
        "valid": [{"code": e.source, "note": e.note} for e in rule.valid],
        "invalid": [{"code": e.source, "line": e.line, "fixed": e.fixed_source, "note": e.note}
                    for e in rule.invalid],
    }


def render_rule_list(console: Console) -> None:
    table = Table("code", "name", "fix", "title", box=None, pad_edge=False)
    for rule in all_rules():
        fix = rule.fix_applicability.value if rule.fix else "-"
        table.add_row(rule.code, rule.name, fix, escape(rule.title))
    console.print(table)


def render_rule(rule: type[Rule], console: Console) -> None:
    console.print(f"[bold]{rule.code} {rule.name}[/]: {escape(rule.title)}\n")
    console.print(escape(rule.rationale) + "\n")
    if rule.fix:
        console.print(f"[bold]Fix ({rule.fix_applicability.value}):[/] {escape(rule.fix)}")
        if rule.why_unsafe:
            console.print(f"[bold]Why unsafe:[/] {escape(rule.why_unsafe)}")
    if rule.speedup_model:
        console.print(f"[bold]Expected speedup:[/] {escape(rule.speedup_model)}")
    for title, examples in (("Reported", rule.invalid), ("Accepted", rule.valid)):
        for example in examples:
            note = f" ({escape(example.note)})" if example.note else ""
            console.print(f"\n[bold]{title}[/]{note}:")
            console.print(Syntax(example.source.rstrip("\n"), "python", theme="ansi_dark",
                                 background_color="default"))
            if example.fixed_source is not None:
                console.print("[bold]Fixed:[/]")
                console.print(Syntax(example.fixed_source.rstrip("\n"), "python", theme="ansi_dark",
                                     background_color="default"))
