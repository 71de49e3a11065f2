"""GitHub workflow-command annotations: one well-formed line per finding, paths from the working directory."""

from __future__ import annotations

import re
from pathlib import Path

from advisor.report.github import render_github

from report_helpers import REPO_ROOT, file_span

ANNOTATION = re.compile(r"^::(warning|notice) (?P<props>[^:]*)::(?P<message>.*)$")


def parse(line: str) -> tuple[str, dict[str, str], str]:
    match = ANNOTATION.match(line)
    assert match, f"not a workflow command: {line!r}"
    props = dict(item.split("=", 1) for item in match["props"].split(","))
    return match[1], props, match["message"]


def unescape(text: str) -> str:
    for escaped, raw in (("%0A", "\n"), ("%0D", "\r"), ("%3A", ":"), ("%2C", ","), ("%25", "%")):
        text = text.replace(escaped, raw)
    return text


def test_one_annotation_per_finding_pointing_at_the_file_from_the_checkout(samples_report, monkeypatch):
    monkeypatch.chdir(REPO_ROOT)
    lines = [line for line in render_github(samples_report).splitlines() if "title=advisor::" not in line]
    assert len(lines) == len(samples_report.findings)  # the rest are the report's warnings
    for line, finding in zip(lines, samples_report.findings):
        command, props, message = parse(line)
        assert command == ("notice" if finding.confidence.value == "possible" else "warning")
        assert props["title"] == finding.code
        # The report was made from samples/, the workflow runs at the repo root: the path must resolve from there.
        assert props["file"] == f"samples/{finding.location.path.as_posix()}"
        assert (REPO_ROOT / props["file"]).is_file()
        assert tuple(int(props[key]) for key in ("line", "col", "endLine", "endColumn")) == \
            file_span(finding.location)
        body = unescape(message).splitlines()
        cell = f"{finding.location.line_label}: " if finding.location.cell is not None else ""
        assert body[0].startswith(cell + finding.message)
        assert [f"{e.kind.value}: {e.message}" for e in finding.evidence] == body[1:1 + len(finding.evidence)]


def test_separators_and_newlines_in_paths_and_messages_are_escaped(tmp_path, monkeypatch):
    repo = tmp_path / "odd, name: 100%"
    repo.mkdir()
    (repo / "train.py").write_text("import tensorflow as tf\nds = tf.data.Dataset.range(10).map(lambda x: x * 2)\n")
    from advisor.config import Settings
    from advisor.engine import analyze
    from advisor.model import Confidence

    report = analyze(repo, None, Settings(min_confidence=Confidence.POSSIBLE))
    report.findings[0].message = "50% of the step\nis input, wait: really"
    monkeypatch.chdir(tmp_path)
    for line in render_github(report).splitlines():
        _, props, message = parse(line)  # a stray ',' or ':' would break this parse
        assert Path(unescape(props["file"])) == Path("odd, name: 100%/train.py")
    first = parse(render_github(report).splitlines()[0])[2]
    assert "\n" not in first and unescape(first).startswith("50% of the step\nis input, wait: really")


def test_warnings_are_annotations_without_a_file(markup_report):
    markup_report.warnings.append("bad.py: syntax error")
    assert render_github(markup_report).splitlines()[-1] == "::warning title=advisor::bad.py: syntax error"
