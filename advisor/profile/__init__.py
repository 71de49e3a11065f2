"""The profile side of advisor: find a capture, read it with the profiler plugin's converters and the raw trace,
and summarise it as :class:`ProfileFindings`. ``advisor.profile.capture`` records new captures."""

from advisor.profile.findings import ProfileFindings
from advisor.profile.loader import load_profile
from advisor.profile.summary import render_profile_summary

__all__ = ["ProfileFindings", "load_profile", "render_profile_summary"]
