"""Write an HTML report of samples/ with the CONSTRUCTED profile of tests/report/constructed_profile.json attached,
so the profile charts have something to draw before real captures are committed.

Usage: python scripts/demo_report.py OUT.html
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from types import SimpleNamespace

from advisor.config import Settings
from advisor.engine import analyze
from advisor.report.formats import write_atomic
from advisor.report.html import render_html

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    report = analyze(ROOT / "samples", None, Settings())
    profile = json.loads((ROOT / "tests/report/constructed_profile.json").read_text())
    # Reports read a profile only through to_json(), so this stands in for ProfileFindings.
    report.profile = SimpleNamespace(to_json=lambda: profile)
    write_atomic(Path(sys.argv[1]), render_html(report))


if __name__ == "__main__":
    main()
