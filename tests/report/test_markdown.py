"""Markdown for PR comments: a summary table, a section per finding with its diff, text that cannot break out."""

from __future__ import annotations

import re

from advisor.report.markdown import code_block, code_span, markdown_text, render_markdown


def test_summary_table_and_sections_for_every_finding(samples_report):
    text = render_markdown(samples_report)
    rows = [line for line in text.splitlines() if re.match(r"^\| \d+ \| ", line)]
    assert len(rows) == len(samples_report.findings)
    for number, finding in enumerate(samples_report.findings, 1):
        assert f"#### {number}. {finding.code} {finding.name} at `{finding.location.display}`" in text
        if finding.patch is not None:
            assert code_block(finding.patch.diff, "diff") in text
    assert "### Profile" not in text


def test_profile_summary_from_the_profile_json(profiled_report):
    text = render_markdown(profiled_report)
    assert "### Profile" in text and "| Bottleneck | Your program is HIGHLY input-bound because 61.5%" in text
    assert re.search(r"\| Input \| 61\.5% \| █+ \|", text)
    assert "| `Iterator::Root::BatchV2::Map` | 104.20 | 640 | 1 | false |" in text


def test_markup_in_messages_is_escaped_outside_code_spans():
    assert markdown_text("a <script> *b* `x<y>*z*`") == r"a \<script> \*b\* `x<y>*z*`"


def test_code_fences_and_spans_outlast_backticks_inside():
    block = code_block("x = '```'\n", "python")
    assert block.startswith("````python\n") and block.endswith("\n````")
    assert code_span("a`b") == "``a`b``"
    assert code_span("a|b", in_table=True) == r"`a\|b`"
