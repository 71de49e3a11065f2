"""Rule documentation, generated from each rule's own metadata and examples.

:func:`rule_json` is the one reading of a rule; the text, JSON and Markdown renderings all start from it.
"""

from __future__ import annotations

from typing import Any, Iterable

from rich.console import Console
from rich.markup import escape
from rich.syntax import Syntax
from rich.table import Table

from ..catalogue import all_rules
from ..rule import Rule


def rule_json(rule: type[Rule]) -> dict[str, Any]:
    return {
        "code": rule.code,
        "name": rule.name,
        "title": rule.title,
        "rationale": rule.rationale,
        "fix": rule.fix,
        "fix_availability": rule.fix_availability.value,
        "fix_applicability": rule.fix_applicability.value if rule.fix else None,
        "why_unsafe": rule.why_unsafe,
        "speedup_model": rule.speedup_model,
        "valid": [{"code": e.source, "note": e.note} for e in rule.valid],
        "invalid": [{"code": e.source, "line": e.line, "fixed": e.fixed_source, "note": e.note}
                    for e in rule.invalid],
    }


def fix_summary(rule: dict[str, Any]) -> str:
    """``always (safe)``, ``sometimes (unsafe)``, or ``never``: how often a finding has a fix, and what kind."""
    if rule["fix_applicability"] is None:
        return rule["fix_availability"]
    return f"{rule['fix_availability']} ({rule['fix_applicability']})"


def render_rule_list(console: Console) -> None:
    table = Table("code", "name", "fix", "title", box=None, pad_edge=False)
    for rule in map(rule_json, all_rules()):
        table.add_row(rule["code"], rule["name"], fix_summary(rule), escape(rule["title"]))
    console.print(table)


def _code(source: str) -> Syntax:
    return Syntax(source.rstrip("\n"), "python", theme="ansi_dark", background_color="default")


def render_rule(rule_class: type[Rule], console: Console) -> None:
    rule = rule_json(rule_class)
    console.print(f"[bold]{rule['code']} {rule['name']}[/]: {escape(rule['title'])}\n")
    console.print(escape(rule["rationale"]) + "\n")
    if rule["fix"]:
        console.print(f"[bold]Fix ({fix_summary(rule)}):[/] {escape(rule['fix'])}")
        if rule["why_unsafe"]:
            console.print(f"[bold]Why unsafe:[/] {escape(rule['why_unsafe'])}")
    if rule["speedup_model"]:
        console.print(f"[bold]Expected speedup:[/] {escape(rule['speedup_model'])}")
    for title, examples in (("Reported", rule["invalid"]), ("Accepted", rule["valid"])):
        for example in examples:
            note = f" ({escape(example['note'])})" if example["note"] else ""
            console.print(f"\n[bold]{title}[/]{note}:")
            console.print(_code(example["code"]))
            if example.get("fixed") is not None:
                console.print("[bold]Fixed:[/]")
                console.print(_code(example["fixed"]))


def render_rules_markdown(rules: Iterable[type[Rule]]) -> str:
    """The rules reference (docs/rules.md is this, for all rules)."""
    from .markdown import code_block, markdown_text
    from .view import make_environment

    env = make_environment(False, md=markdown_text, code_block=code_block, fix_summary=fix_summary)
    return env.get_template("rules.md.j2").render(rules=[rule_json(r) for r in rules])
