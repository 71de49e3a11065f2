"""docs/rules.md is generated from the rules' metadata and examples, and must be kept current."""

from __future__ import annotations

from click.testing import CliRunner

from advisor.cli import cli
from advisor.report.rules_doc import render_rules_markdown
from advisor.catalogue import all_rules

from report_helpers import REPO_ROOT

RULES_DOC = REPO_ROOT / "docs" / "rules.md"
REGENERATE = "advisor rules --format markdown > docs/rules.md"


def test_committed_rules_doc_is_current():
    generated = CliRunner().invoke(cli, ["rules", "--format", "markdown"], catch_exceptions=False).stdout
    committed = RULES_DOC.read_text() if RULES_DOC.is_file() else ""
    assert committed == generated, f"docs/rules.md is stale: regenerate it with `{REGENERATE}` and commit it"


def test_every_rule_and_example_is_documented():
    text = render_rules_markdown(all_rules())
    for rule in all_rules():
        assert f"## {rule.code} {rule.name}\n" in text
        assert f"(#{rule.code.lower()}-{rule.name})" in text  # the index links to the section
        for example in rule.valid + rule.invalid:
            assert example.source.rstrip("\n") in text
            if example.fixed_source is not None:
                assert example.fixed_source.rstrip("\n") in text


def test_one_rule_in_markdown():
    rule = all_rules()[0]
    result = CliRunner().invoke(cli, ["rules", rule.code, "--format", "markdown"], catch_exceptions=False)
    assert result.exit_code == 0 and f"## {rule.code} {rule.name}" in result.stdout
    assert result.stdout.count("\n## ") == 1
