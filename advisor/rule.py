"""The rule framework: what a rule is, how rules are found, and how they report.

A rule is one class in one module of ``advisor.rules``. It declares a stable code, a name, its rationale, whether
its fix is safe, and examples of code it accepts and code it reports (with the fixed code where it has a fix).
The tests run every rule on its own examples, and ``advisor rules CODE`` shows them. Rules are discovered by
importing every module of the package; nothing registers them by hand.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import textwrap
from dataclasses import dataclass, field
from functools import cache, cached_property
from typing import TYPE_CHECKING, Any, ClassVar, Iterable, Mapping

import libcst as cst

from .linking import PipelineMatch, match_pipelines
from .model import Applicability, Confidence, Evidence, Finding, FixRef, SpeedupEstimate
from .source.index import ModuleInfo, SourceIndex
from .source.pipelines import Pipeline, Stage

if TYPE_CHECKING:
    from .config import Settings


@dataclass(frozen=True)
class Example:
    """A file a rule accepts (``valid``) or reports (``invalid``).

    For invalid examples, ``line`` is where the finding must point, and ``fixed`` is the file after its fix
    (``None`` when the rule offers no fix for it). ``files`` adds other modules of the example repo, by path.
    ``profile``: a committed capture (path from the repository root, e.g. ``samples/profiles/slow_callback``) the
    example is analysed with, for rules that need one to report.
    """

    code: str
    line: int | None = None
    fixed: str | None = None
    files: Mapping[str, str] = field(default_factory=dict)
    note: str = ""
    profile: str | None = None

    @property
    def source(self) -> str:
        return textwrap.dedent(self.code).lstrip("\n")

    @property
    def fixed_source(self) -> str | None:
        return textwrap.dedent(self.fixed).lstrip("\n") if self.fixed is not None else None


@dataclass
class RuleContext:
    """What a rule may read: the source index, the profile findings (None for a static run), and the settings."""

    index: SourceIndex
    profile: Any  # advisor.profile.ProfileFindings | None
    settings: "Settings"

    @cached_property
    def pipeline_matches(self) -> list[PipelineMatch]:
        """The repo's tf.data pipelines matched to the runtime iterator chains of the capture."""
        if self.profile is None:
            return []
        return match_pipelines(self.index.pipelines(), self.profile.input_pipeline.iterators)

    def runtime_iterator(self, stage: Stage) -> tuple[Any, PipelineMatch] | None:
        """The runtime iterator that ran ``stage`` in the capture, with the match it came from (best first)."""
        found = [(m.iterator_of[id(stage.node)], m) for m in self.pipeline_matches if id(stage.node) in m.iterator_of]
        return max(found, key=lambda pair: pair[1].score) if found else None

    def runtime_chain(self, pipeline: Pipeline) -> PipelineMatch | None:
        """The runtime chain that ran ``pipeline``, if the capture shows it."""
        stage_ids = tuple(id(s.node) for s in pipeline.stages)
        found = [m for m in self.pipeline_matches if tuple(id(s.node) for s in m.pipeline.stages) == stage_ids]
        return max(found, key=lambda m: m.score) if found else None

    @property
    def target_device(self) -> str | None:
        """"cpu", "gpu" or "tpu": the configured target first (a CPU capture may be a dry run of GPU training),
        else what the capture ran on; None when neither says."""
        if self.settings.target_device:
            return self.settings.target_device.lower()
        if self.profile is None:
            return None
        return {"CPU_ONLY": "cpu", "CPU": "cpu", "GPU": "gpu", "TPU": "tpu"}.get(self.profile.hardware.type.upper())

    @property
    def input_share(self) -> float | None:
        """The share of step time spent waiting for input (0..1), from the profile."""
        return self.profile.breakdown_pct.get("input", 0.0) / 100 if self.profile is not None else None


class Rule:
    """Base class of every rule. Subclasses set the class attributes and implement :meth:`check`."""

    code: ClassVar[str]  # stable, by family: TFD (tf.data), TFH (host, callbacks), TFC (device compute)
    name: ClassVar[str]  # kebab-case, e.g. "missing-prefetch"
    title: ClassVar[str]  # one line
    rationale: ClassVar[str]  # why it costs time, in a few sentences
    fix: ClassVar[str | None] = None  # what the fix does, or None
    fix_applicability: ClassVar[Applicability] = Applicability.SAFE
    why_unsafe: ClassVar[str | None] = None
    speedup_model: ClassVar[str] = ""  # how the expected speedup is computed
    valid: ClassVar[tuple[Example, ...]] = ()
    invalid: ClassVar[tuple[Example, ...]] = ()

    def check(self, ctx: RuleContext) -> Iterable[Finding]:
        raise NotImplementedError

    # -- helpers for subclasses ---------------------------------------------------------------------------------
    def finding(self, module: ModuleInfo, node: cst.CSTNode, message: str, *, confidence: Confidence,
                evidence: Iterable[Evidence] = (), speedup: SpeedupEstimate | None = None,
                fix_args: Mapping[str, Any] | None = None, codemod: type | None = None, priority: int = 0,
                end_node: cst.CSTNode | None = None) -> Finding:
        """A finding at ``node``; with ``codemod``, one that carries this rule's fix.

        The codemod gets the finding's position (``line``, ``column``) plus ``fix_args``.
        """
        location = module.location(node, end_node)
        fix = None
        if codemod is not None:
            args = {"line": location.line, "column": location.column, **(fix_args or {})}
            fix = FixRef(codemod, args, self.fix or "", self.fix_applicability, self.why_unsafe)
        return Finding(self.code, self.name, location, message, confidence, list(evidence), speedup, fix,
                       priority=priority)


@cache
def all_rules() -> tuple[type[Rule], ...]:
    """Every rule class in ``advisor.rules``, sorted by code."""
    from advisor import rules as package

    found: list[type[Rule]] = []
    for info in pkgutil.iter_modules(package.__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        found.extend(obj for _, obj in inspect.getmembers(module, inspect.isclass)
                     if issubclass(obj, Rule) and obj is not Rule and obj.__module__ == module.__name__)
    return tuple(sorted(found, key=lambda r: r.code))


def rule_by_code(code: str) -> type[Rule] | None:
    wanted = code.upper()
    return next((r for r in all_rules() if r.code == wanted or r.name == code.lower()), None)
