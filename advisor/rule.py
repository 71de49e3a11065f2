"""The rule API: everything a rule author imports, from one module (like ``from fixit import LintRule, Valid``).

A rule is one class in one module of ``advisor.rules``. It declares a stable code, a name, its rationale, whether
its fix is safe and how often it has one, and examples of code it accepts and code it reports (with the fixed code
where it has a fix). The tests run every rule on its own examples, and ``advisor rules CODE`` shows them. Rules are
discovered (:mod:`advisor.catalogue`); nothing registers them by hand.

A rule reads the source through ``ctx.index`` (what was parsed) and ``ctx.queries`` (shared questions: training
steps and loops, hot functions, Keras models), asks ``ctx.verdicts`` what the capture says about what it found, and
reports with :meth:`Rule.finding`. It never parses, never reads the profile itself, and never imports another rule;
besides this module it imports only its own codemod.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, ClassVar, Iterable, Mapping

import libcst as cst

from .config import Settings
from .model import (Applicability, Confidence, Evidence, Finding, FixAvailability, FixRef, Location, Reach,
                    SpeedupEstimate)
from .profile.facts import ProfileFindings
from .source.facts import CallSite, ClassInfo, FunctionInfo, ModuleInfo, Pipeline, Stage
from .source.index import SourceIndex
from .source.names import GRADIENT_TAPE, TF_FUNCTION
from .source.queries import (IMAGE_ITERATOR_BATCH_POSITION, NUMPY_CALL, PER_TENSOR_HISTOGRAMS, PERCENT_FORMATTING,
                             PYTHON_FUNCTION_OPS, STRING_FORMAT, VALUE_CONVERSIONS, EagerSwitch,
                             FedBatches, HotContext, InLoopBody, IntegerLiteral, MappedFunction, MixedPrecisionPlan,
                             ModelCompute, ModelConstruction, PerStepKerasCall, PrecisionSetting, SideEffect,
                             SourceQueries, TrainingLoop,
                             batch_parameter, compiled_function_name, host_built_summary, num_parallel_calls,
                             recorded_on_some_steps, runs_in_parallel)
from .source.syntax import anchor, argument, argument_value, brief, literal, method_name
from .source.requirements import TensorflowPin
from .source.visitors import visit_reading
from .speedup import round_up, typical
from .verdicts import CONFIRMED_EAGER_SHARE_PCT, EAGER_OPS_MIN, Verdict, Verdicts

__all__ = [
    "CONFIRMED_EAGER_SHARE_PCT", "EAGER_OPS_MIN", "GRADIENT_TAPE", "IMAGE_ITERATOR_BATCH_POSITION", "NUMPY_CALL",
    "PER_TENSOR_HISTOGRAMS", "PERCENT_FORMATTING",
    "PYTHON_FUNCTION_OPS", "STRING_FORMAT", "TF_FUNCTION", "VALUE_CONVERSIONS",
    "Applicability", "CallSite", "ClassInfo", "Confidence", "EagerSwitch", "Evidence", "Example", "FedBatches",
    "Finding",
    "FixAvailability", "FunctionInfo", "HotContext", "InLoopBody", "IntegerLiteral", "Location", "MappedFunction",
    "MixedPrecisionPlan", "ModelCompute", "ModelConstruction", "ModuleInfo", "PerStepKerasCall", "Pipeline",
    "PrecisionSetting", "Reach",
    "Rule", "RuleContext", "SideEffect", "SpeedupEstimate", "Stage", "TensorflowPin", "TrainingLoop",
    "UNCONSUMED", "Verdict", "anchor", "argument", "argument_value", "batch_parameter", "brief", "cached_results",
    "compiled_function_name", "environment_steps", "host_built_summary", "literal",
    "method_name", "num_parallel_calls", "recorded_on_some_steps", "round_up", "runs_in_parallel", "spelling_args",
    "tf1_runtime", "typical",
    "visit_reading",
]


@dataclass(frozen=True)
class Example:
    """A file a rule accepts (``valid``) or reports (``invalid``).

    For invalid examples, ``line`` is where the finding must point, and ``fixed`` is the file after its fix
    (``None`` when the rule offers no fix for it). ``files`` adds other modules of the example repo, by path.
    ``profile``: a committed capture (path from the repository root, e.g. ``samples/profiles/slow_callback``) the
    example is analysed with, for rules that need one to report; ``settings``: Settings fields it is analysed with
    (e.g. ``{"target_device": "gpu"}``).
    """

    code: str
    line: int | None = None
    fixed: str | None = None
    files: Mapping[str, str] = field(default_factory=dict)
    note: str = ""
    profile: str | None = None
    settings: Mapping[str, Any] = field(default_factory=dict)

    @property
    def source(self) -> str:
        return textwrap.dedent(self.code).lstrip("\n")

    @property
    def fixed_source(self) -> str | None:
        return textwrap.dedent(self.fixed).lstrip("\n") if self.fixed is not None else None


@dataclass
class RuleContext:
    """What a rule may read: the source index and its shared queries, the verdicts of the capture (which answer
    with the static verdict on a static run), the profile's plain facts (None for a static run), and the settings."""

    index: SourceIndex
    profile: ProfileFindings | None
    settings: Settings

    @cached_property
    def queries(self) -> SourceQueries:
        return SourceQueries(self.index)

    @cached_property
    def verdicts(self) -> Verdicts:
        return Verdicts(self.profile, self.queries, self.settings.target_device)

    @property
    def target_device(self) -> str | None:
        """"cpu", "gpu" or "tpu": what hardware the advice assumes (see :attr:`Verdicts.target_device`)."""
        return self.verdicts.target_device


class Rule:
    """Base class of every rule. Subclasses set the class attributes and implement :meth:`check`."""

    code: ClassVar[str]  # stable, by family: TFD (tf.data), TFH (host, callbacks), TFC (device compute)
    name: ClassVar[str]  # kebab-case, e.g. "missing-prefetch"
    # Style notes with no speed effect are off unless selected (by code, prefix or ALL).
    enabled_by_default: ClassVar[bool] = True
    title: ClassVar[str]  # one line
    rationale: ClassVar[str]  # why it costs time, in a few sentences
    fix: ClassVar[str | None] = None  # what the fix does, or None
    fix_availability: ClassVar[FixAvailability] = FixAvailability.NEVER
    fix_applicability: ClassVar[Applicability] = Applicability.SAFE
    why_unsafe: ClassVar[str | None] = None
    speedup_model: ClassVar[str] = ""  # how the expected speedup is computed
    valid: ClassVar[tuple[Example, ...]] = ()
    invalid: ClassVar[tuple[Example, ...]] = ()

    def check(self, ctx: RuleContext) -> Iterable[Finding]:
        raise NotImplementedError

    def finding(self, module: ModuleInfo, node: cst.CSTNode, message: str, verdict: Verdict, *,
                reach: Reach = Reach.UNKNOWN, codemod: type | None = None, fix_args: Mapping[str, Any] | None = None,
                priority: int = 0, end_node: cst.CSTNode | None = None) -> Finding:
        """A finding at ``node`` (to ``end_node``) with the confidence, speedup and evidence of ``verdict``, about
        code that a training run reaches or not (``reach``, from ``ctx.queries.reach``); with ``codemod``, one that
        carries this rule's fix, which gets the finding's ``line`` and ``column`` plus ``fix_args``."""
        location = module.location(node, end_node)
        fix = None
        if codemod is not None:
            args = {"line": location.line, "column": location.column, **(fix_args or {})}
            fix = FixRef(codemod, args, self.fix or "", self.fix_applicability, self.why_unsafe)
        evidence = list(verdict.evidence)
        if reach is Reach.OTHER:
            evidence.append(Evidence.source("the repo trains, but no training entry point reaches this code"))
        return Finding(self.code, self.name, location, message, verdict.confidence, evidence, verdict.speedup, fix,
                       priority=priority, reach=reach)


def spelling_args(ctx: "RuleContext", modules: Iterable[ModuleInfo]) -> dict | None:
    """A tf.data fix's arguments: write the names that exist in the TensorFlow ``modules`` run on (see
    :meth:`SourceQueries.predates_tf24_names`; the key keeps its first name, saved analyses use it)."""
    return {"tensorflow_1": True} if ctx.queries.predates_tf24_names(modules) else None


def environment_steps(environment: CallSite, consequence: str) -> Evidence:
    """Why a reinforcement-learning program's device waits on its host: the environment ``ctx.queries`` found
    (``acting_environment``, ``pipeline_environment``), and what that means for the finding."""
    module = environment.module
    return Evidence.source(f"the agent trains between steps of an environment (`{module.node_code(environment.node)}`"
                           f", {module.location(environment.node).display}), which the host runs in Python: "
                           f"{consequence}")


def cached_results(cache: Stage) -> Evidence:
    """Why a per-element function runs in the first epoch only: the ``.cache()`` ``ctx.queries.cached_after``
    found after it."""
    return Evidence.source(f"`.cache()` ({cache.module.location(cache.anchor).line_label}) keeps its results: it "
                           "runs in the first epoch only")


# Why a per-element function may not cost training anything: no code is seen reading its dataset.
UNCONSUMED = Evidence.source("no consumer of this dataset is seen (`fit`, a loop, an iterator, a function's return): "
                             "it may not be what training reads")


def tf1_runtime(call: CallSite) -> Evidence:
    """Why a pipeline runs on TensorFlow 1.x: the TF1-only call ``ctx.queries.tf1_call`` found."""
    return Evidence.source(f"`{call.module.node_code(call.node.func)}` ({call.module.location(call.node).display}) "
                           "exists only in TensorFlow 1.x: there tf.data parallelizes no map and injects no prefetch "
                           "at run time")
