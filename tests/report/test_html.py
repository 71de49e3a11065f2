"""The HTML report: escapes everything from the user's code, draws the profile as inline SVG, needs nothing
outside the file."""

from __future__ import annotations

from html.parser import HTMLParser

from advisor.report.html import breakdown_bars, render_html, shorten
from advisor.profile.facts import ProfileFindings
from advisor.report.view import Segment

from report_helpers import MARKUP_SOURCE, constructed_profile_json


class Page(HTMLParser):
    """The tags, attributes and text of a page, as a browser's parser sees them."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.feed(html)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_startendtag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)

    def named(self, name: str) -> list[dict[str, str | None]]:
        return [attrs for tag, attrs in self.tags if tag == name]

    def element(self, element_id: str) -> bool:
        return any(attrs.get("id") == element_id for _, attrs in self.tags)


def test_markup_in_the_source_is_shown_as_text_never_as_tags(markup_report):
    page = Page(render_html(markup_report))
    assert page.named("script") == [] and page.named("b") == []
    text = "".join(page.text)
    # The snippet shows the lines around the finding verbatim, markup included, as text.
    for line in MARKUP_SOURCE.splitlines()[1:3]:
        assert line in text


def test_every_finding_has_a_section_with_source_evidence_and_diff(samples_report):
    html = render_html(samples_report)
    page = Page(html)
    text = "".join(page.text)
    for finding in samples_report.findings:
        assert page.element(f"finding-{finding.id}")
        assert finding.location.display in text
        assert finding.message.replace("`", "") in text
        for evidence in finding.evidence:  # `code spans` become <code> elements
            assert evidence.message.replace("`", "") in text
        if finding.patch is not None:
            for line in finding.patch.diff.splitlines():
                assert line in text
    assert "<pre class=\"source\">" in html
    assert not page.element("breakdown-chart"), "a static report has no profile to draw"


def test_profile_is_drawn_as_inline_svg(profiled_report):
    page = Page(render_html(profiled_report))
    assert page.element("breakdown-chart") and page.element("iterator-chart")
    profile = constructed_profile_json()
    shown = {k: v for k, v in profile["breakdown_pct"].items() if v > 0}
    # One coloured bar per non-zero category, plus the background.
    assert len([r for r in page.named("rect") if r.get("fill", "").startswith("#")]) >= len(shown) + 1
    text = "".join(page.text)
    assert "Input: 61.5%" in text and "104.20 ms" in text
    assert "Map" in text and "does not prefetch" in text


def test_a_real_capture_is_drawn(captured_report):
    profile = captured_report.profile.to_json()
    page = Page(render_html(captured_report))
    assert page.element("breakdown-chart") and page.element("iterator-chart")
    text = "".join(page.text)
    input_share = profile["breakdown_pct"]["input"]
    assert f"Input: {input_share:.1f}%" in text
    assert f"{profile['steps']['count']}" in text
    for iterator in profile["input_pipeline"]["iterators"]:
        assert iterator["name"] in text  # in the bar's <title>, in full


def test_the_page_is_self_contained(profiled_report):
    page = Page(render_html(profiled_report))
    assert page.named("script") == [] and page.named("link") == [] and page.named("img") == []
    for _, attrs in page.tags:
        for name in ("src", "href"):
            value = attrs.get(name)
            assert value is None or value.startswith("#"), f"{name}={value} leaves the page"


def test_a_profile_without_iterators_or_breakdown_draws_no_charts(markup_report):
    profile = constructed_profile_json()
    profile["breakdown_pct"] = {key: 0.0 for key in profile["breakdown_pct"]}
    profile["input_pipeline"].update(iterators=[], dominant_stage=None)
    markup_report.profile = ProfileFindings.from_json(profile)
    page = Page(render_html(markup_report))
    assert not page.element("breakdown-chart") and not page.element("iterator-chart")
    assert "HIGHLY input-bound" in "".join(page.text)


def test_breakdown_bars_leave_unaccounted_time_empty_and_fit_the_chart():
    bars = breakdown_bars([Segment("input", "Input", 50.0), Segment("other", "Other", 25.0)])
    assert [(b.x, b.width) for b in bars] == [(0.0, 500.0), (500.0, 250.0)]
    over = breakdown_bars([Segment("input", "Input", 60.0), Segment("other", "Other", 60.0)])
    assert over[-1].x + over[-1].width == 1000.0


def test_long_iterator_names_keep_their_end():
    assert shorten("Iterator::Root::Map") == "Root::Map"
    long = shorten("Iterator::Root::" + "Stage::" * 20 + "Map", limit=20)
    assert len(long) == 20 and long.endswith("::Map") and long.startswith("…")
