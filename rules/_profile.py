"""What the rules read from the profile, by the agreed ProfileFindings attribute names.

A capture holds only what its hardware and options recorded (no device data on a CPU-only run, no Python frames
without the Python tracer), so every read here tolerates a missing attribute and answers None.
"""

from __future__ import annotations

from typing import Any

from advisor.rule import RuleContext

# profile.hardware.type as the overview page reports it -> the names settings use for target_device.
_HARDWARE = {"CPU_ONLY": "cpu", "CPU": "cpu", "GPU": "gpu", "TPU": "tpu"}


def profile_value(profile: Any, dotted: str) -> Any:
    """``profile.a.b`` for ``"a.b"``; None when the profile, or any attribute on the way, is missing."""
    value = profile
    for attribute in dotted.split("."):
        if value is None:
            return None
        value = value.get(attribute) if isinstance(value, dict) else getattr(value, attribute, None)
    return value


def target_hardware(ctx: RuleContext) -> str | None:
    """"cpu", "gpu" or "tpu": the configured target device first (a CPU capture may be a dry run of GPU
    training), else what the capture ran on; None when neither says."""
    configured = getattr(ctx.settings, "target_device", None)
    if configured:
        return str(configured).lower()
    captured = profile_value(ctx.profile, "hardware.type")
    return _HARDWARE.get(str(captured).upper()) if captured else None
