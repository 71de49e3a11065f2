"""The text report prints user text as it is: fix ids (hex, often read as a style tag by rich), messages, paths,
and what the profile names, never as markup."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from advisor.report.formats import render_text


def test_every_fix_id_is_visible(samples_report):
    text = render_text(samples_report)
    fixable = [f for f in samples_report.findings if f.patch is not None]
    assert fixable
    for finding in fixable:
        assert f"fix [{finding.id}]: " in text


def test_an_id_starting_with_a_letter_is_printed(samples_report):
    finding = next(f for f in samples_report.findings if f.patch is not None)
    # Move it until its id reads like a style name ("[fa022922]"): such ids used to vanish from the report.
    moved = next(m for line in range(1, 500) if (m := dataclasses.replace(
        finding, location=dataclasses.replace(finding.location, line=line))).id[0] in "abcdef")
    report = dataclasses.replace(samples_report, findings=[moved])
    assert f"fix [{moved.id}]: " in render_text(report)


def test_markup_in_paths_messages_and_profile_names_is_printed_as_written(profiled_report):
    finding = profiled_report.findings[0]
    strange = dataclasses.replace(finding, message="[bold]not bold[/bold] [red]", location=dataclasses.replace(
        finding.location, path=Path("[link=x]odd[/link].py")))
    profiled_report.profile.warnings.append("[blink]capture warning[/blink]")
    text = render_text(dataclasses.replace(profiled_report, findings=[strange]))
    assert "[bold]not bold[/bold] [red]" in text
    assert "[link=x]odd[/link].py:" in text
    assert "[blink]capture warning[/blink]" in text


def test_locations_and_messages_that_look_like_emoji_codes_are_printed_as_written(samples_report):
    finding = samples_report.findings[0]
    # rich turns `:100:` into an emoji unless told not to: `resnet.py:100:12` came out as `resnet.py💯12`.
    odd = dataclasses.replace(finding, message="flag :smile: set", location=dataclasses.replace(
        finding.location, line=100))
    text = render_text(dataclasses.replace(samples_report, findings=[odd]))
    assert f"{odd.location.path.as_posix()}:100:" in text
    assert "flag :smile: set" in text
