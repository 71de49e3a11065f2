"""Evidence gates: what the capture says about one piece of source, as one :class:`Verdict`.

A rule states what the source alone supports (a static :class:`Verdict`: confidence, typical speedup, a phrase for
its message) and asks :class:`Verdicts` about the source object it found: a tf.data stage or pipeline, a Python
function call, a callback hook, a training step, a ``tf.function``, the model's layers. Without a capture the
static verdict comes back unchanged; with one, the gate confirms it (and sizes the speedup from the capture's own
numbers), leaves it as it was (the capture does not show that code), or contradicts it, and its evidence says which
capture fact decided. Every rule asks here; none reads the profile on its own.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property
from typing import Sequence

import libcst as cst

from . import speedup
from .linking import PARALLEL_STAGES, PipelineMatch, match_pipelines, op_types_of, separate_by_ops
from .model import Confidence, Evidence, EvidenceKind, Finding, SpeedupEstimate
from .profile.facts import Iterator, ProfileFindings
from .source.facts import CallSite, FunctionInfo, ModuleInfo, Pipeline, Stage
from .source.queries import FUNCTION_STAGES, HotContext, Registration, SourceQueries

# Host gaps: the profile calls a gap between steps this large (share of the step) a cost worth confirming.
CONFIRMED_GAP_SHARE = 0.05
# Keras' own host work between two step calls: 0.4-0.9 ms in every committed capture without a per-batch callback
# (samples/profiles/truth.json, `between_steps`). A gap several times longer is work the script added.
KERAS_OWN_GAP_MS = 1.0
KERAS_OWN_GAP_FACTOR = 5
# Eager steps: a compiled step dispatches about two ops from Python per step (the function and the input's
# GetNext); an eager one dispatches every op of the forward pass, the gradient and the update (232 per step in
# samples/eager_loop). Fewer than this per step: the captured loop is not running an eager training step.
EAGER_OPS_MIN = 20
# The captured step is confirmed as dispatch-bound when Python and op dispatch (the time outside kernels) take at
# least this share of it: compiling then at least doubles the step's speed at the range's high end. Measured: 87%
# in samples/eager_loop, 37% in its compiled twin (whose short step is mostly the loop's own Python).
CONFIRMED_EAGER_SHARE_PCT = 50.0
# Mixed precision: how much faster the eligible (fp32 matmul/conv) device time runs in 16 bits: fp16 tensor cores do
# 2x the TF32 rate on A100/H100 and far more than plain fp32 on V100; end-to-end, compute-bound layers gain 2-3x
# (TensorFlow's mixed precision guide). TPUs already multiply in bfloat16: the policy saves memory traffic.
SIXTEEN_BIT_SPEEDUP = {"gpu": 2.5, "tpu": 1.3}
# Device compute already this much 16-bit means the capture ran mixed precision (set outside the source).
ALREADY_16BIT_PCT = 50.0
# A loop that runs fewer steps than this in all (a 10-step demo of a layer, a 200-iteration toy GAN): a per-step cost
# there adds up to seconds, less than the change would take, and compiling a step costs a trace of its own.
FEW_STEPS = 500
ASYNC_DEVICES = frozenset({"GPU", "TPU"})
HARDWARE_DEVICE = {"CPU_ONLY": "cpu", "CPU": "cpu", "GPU": "gpu", "TPU": "tpu"}


@dataclass(frozen=True)
class Verdict:
    """How sure a finding is, what it promises, and the facts behind both.

    ``note``: a phrase the finding's message uses for what is known at run time (the static verdict's says what the
    source cannot tell; a capture's says what it settled).
    """

    confidence: Confidence
    speedup: SpeedupEstimate | None = None
    evidence: tuple[Evidence, ...] = ()
    note: str | None = None

    @property
    def contradicted(self) -> bool:
        return any(e.kind is EvidenceKind.CONTRADICTION for e in self.evidence)

    def adding(self, *evidence: Evidence) -> "Verdict":
        """This verdict with more evidence, nothing else changed: the capture does not settle it."""
        return replace(self, evidence=self.evidence + evidence)


class Verdicts:
    """The gates over one run's capture (None for a static run) and the repo's source index."""

    def __init__(self, profile: ProfileFindings | None, queries: SourceQueries, configured_device: str | None) -> None:
        self.profile = profile
        self.queries = queries
        self.index = queries.index
        self.configured_device = configured_device

    # -- what the run is ----------------------------------------------------------------------------------------
    @property
    def target_device(self) -> str | None:
        """"cpu", "gpu" or "tpu": the configured target first (a CPU capture may be a dry run of GPU training),
        else what the capture ran on; None when neither says."""
        if self.configured_device:
            return self.configured_device.lower()
        if self.profile is None:
            return None
        return HARDWARE_DEVICE.get(self.profile.hardware.type.upper())

    def accelerator_for(self, module: ModuleInfo, node: cst.CSTNode) -> tuple[str, Evidence] | None:
        """The accelerator ("gpu", "tpu") the code at ``node`` trains on, with the fact that says so: the configured
        target or the capture's hardware (a CPU there means none), else the program's own request for one (a GPU's
        memory growth, a TPU strategy); None when nothing says it runs on one."""
        device = self.target_device
        if device is not None:
            said = "the configured target device" if self.configured_device else "the capture's hardware"
            return (device, Evidence.source(f"{said} is a {device.upper()}")) if device in ("gpu", "tpu") else None
        request = self.queries.accelerator_for(module, node)
        if request is None:
            return None
        return request.device, Evidence.source(
            f"the program asks for a {request.device.upper()} at {request.location.display}")

    @property
    def input_share(self) -> float | None:
        """The share of step time spent waiting for input (0..1), from the capture."""
        return self.profile.breakdown_pct.get("input", 0.0) / 100 if self.profile is not None else None

    @property
    def host_gap_share(self) -> float | None:
        """The share of the run the host spends between Keras steps (0..1); None without a capture of ``fit``."""
        gaps = self.profile.host_gaps if self.profile is not None else None
        return gaps.share_pct / 100 if gaps is not None else None

    def _on_cpu(self, estimate: SpeedupEstimate) -> SpeedupEstimate:
        return speedup.on_shared_cores(estimate, self.target_device == "cpu")

    @property
    def _captured_ms(self) -> float:
        steps = self.profile.steps
        return steps.count * steps.step_time_ms.avg

    # -- tf.data --------------------------------------------------------------------------------------------------
    @cached_property
    def pipeline_matches(self) -> list[PipelineMatch]:
        """The repo's tf.data pipelines matched to the runtime iterator chains of the capture."""
        if self.profile is None:
            return []
        matches = match_pipelines(self.index.pipelines(), self.profile.input_pipeline.iterators)
        if self.profile.op_types is None:  # no op statistics: nothing tells tied pipelines apart
            return matches
        return separate_by_ops(matches, frozenset(self.profile.op_types), self._ops_of)

    def _ops_of(self, pipeline: Pipeline) -> frozenset[str]:
        """The distinctive op types the functions of ``pipeline``'s stages run."""
        ops: set[str] = set()
        for stage in pipeline.stages:
            keyword = FUNCTION_STAGES.get(stage.op)
            mapped = self.queries.mapped_function(stage.node, stage.module, keyword) if keyword else None
            if mapped is not None:
                ops |= op_types_of(n for site in self.queries.calls_run_by(mapped) for n in site.names)
        return frozenset(ops)

    def _runtime_iterator(self, stage: Stage) -> tuple[Iterator, PipelineMatch] | None:
        """The runtime iterator that ran ``stage`` in the capture, with the match it came from (best first)."""
        found = [(m.iterator_of[id(stage.node)], m) for m in self.pipeline_matches if id(stage.node) in m.iterator_of]
        return max(found, key=lambda pair: pair[1].score) if found else None

    def _share_of_steps(self, iterator: Iterator) -> float:
        """The share of the captured steps' time an iterator's own work took (0..1)."""
        return min(iterator.self_time_ms / self._captured_ms, 1.0) if self._captured_ms else 0.0

    def _runtime_chain(self, pipeline: Pipeline) -> PipelineMatch | None:
        stage_ids = tuple(id(s.node) for s in pipeline.stages)
        found = [m for m in self.pipeline_matches if tuple(id(s.node) for s in m.pipeline.stages) == stage_ids]
        return max(found, key=lambda m: m.score) if found else None

    def _input_bound(self, verdict: Verdict, saving: str) -> Verdict | None:
        """The capture's input wait as evidence; a contradiction when the run is not input-bound."""
        bottleneck = self.profile.bottleneck
        if bottleneck.input_class == "low":
            return verdict.adding(Evidence.contradiction(f"the run is not input-bound: {saving}"))
        return None

    def tfdata_stage(self, stage: Stage, static: Verdict) -> Verdict:
        """Did ``stage`` (a map or interleave) run serially in the capture while the step waited for input?"""
        if self.profile is None:
            return static
        found = self._runtime_iterator(stage)
        if found is None:
            return static.adding(Evidence.profile("this stage does not appear in the capture's tf.data iterators"))
        iterator, match = found
        stage_share = self._share_of_steps(iterator)
        evidence = [Evidence.profile(
            f"runs as {iterator.name} ({iterator.dataset}): parallelism {iterator.parallelism}, autotune "
            f"{iterator.autotune}, {iterator.self_time_ms:.0f} ms self time = {stage_share:.0%} of "
            f"{self.profile.steps.count} steps",
            {"iterator": iterator.name, "parallelism": iterator.parallelism, "self_time_ms": iterator.self_time_ms,
             "stage_share": round(stage_share, 4)})]
        evidence += self._ambiguity(match)
        if iterator.parallelism != 1 and iterator.stage in PARALLEL_STAGES:
            evidence.append(Evidence.contradiction(f"TensorFlow already runs it in parallel ({iterator.stage}, "
                                                   f"parallelism {iterator.parallelism})"))
            return Verdict(Confidence.POSSIBLE, None, static.evidence + tuple(evidence), static.note)
        bottleneck = self.profile.bottleneck
        evidence.append(Evidence.profile(f"the step waits for input {bottleneck.input_pct:.1f}% of the time "
                                         f"({bottleneck.input_class})", {"input_pct": bottleneck.input_pct}))
        measured = Verdict(Confidence.POSSIBLE, None, static.evidence + tuple(evidence), static.note)
        not_bound = self._input_bound(measured, "a faster map would not shorten the step")
        if not_bound is not None:
            return not_bound
        cpu_budget = self.profile.input_pipeline.cpu_budget or iterator.parallelism or 1
        estimate = speedup.parallel_stage(stage_share, iterator.parallelism or 1, cpu_budget, self.input_share)
        return Verdict(self._confirmed(match), self._on_cpu(estimate), measured.evidence,
                       f"ran one element at a time in the capture ({iterator.stage}, parallelism "
                       f"{iterator.parallelism or 1}) while the step waited for input")

    def tfdata_chain(self, pipeline: Pipeline, static: Verdict) -> Verdict:
        """Does a prefetch run at the end of ``pipeline`` in the capture, and does the step wait for input?"""
        if self.profile is None:
            return static
        match = self._runtime_chain(pipeline)
        if match is None:
            return static.adding(Evidence.profile("this pipeline does not appear in the capture's tf.data iterators"))
        chain = " <- ".join(it.stage for it in reversed(match.chain.iterators))
        evidence = [Evidence.profile(f"runs as {chain}", {"iterators": [it.name for it in match.chain.iterators]}),
                    *self._ambiguity(match)]
        if match.chain.has_prefetch:
            evidence.append(Evidence.contradiction("a Prefetch iterator runs at run time (TensorFlow injected it): "
                                                   "an explicit prefetch would change nothing"))
            return Verdict(Confidence.POSSIBLE, None, static.evidence + tuple(evidence),
                           "TensorFlow already injects one at run time")
        bottleneck = self.profile.bottleneck
        evidence.append(Evidence.profile(f"no Prefetch iterator ran; the step waits for input "
                                         f"{bottleneck.input_pct:.1f}% of the time ({bottleneck.input_class})",
                                         {"input_pct": bottleneck.input_pct}))
        measured = Verdict(Confidence.POSSIBLE, None, static.evidence + tuple(evidence),
                           "but the run is not input-bound")
        not_bound = self._input_bound(measured, "overlapping input would save little")
        if not_bound is not None:
            return not_bound
        confidence = self._confirmed(match)
        if HARDWARE_DEVICE.get(self.profile.hardware.type.upper()) == "cpu" and confidence is Confidence.CONFIRMED:
            # Overlap gains only what idle cores absorb, and a CPU capture cannot show idle cores: measured on the
            # committed captures, adding the prefetch gained 0.90-1.09x (medians, samples/profiles/ablations.json).
            evidence.append(Evidence.profile("the capture ran on the CPU alone, where the input pipeline and the "
                                             "model share the cores: it cannot show what overlapping them gains"))
            confidence = Confidence.LIKELY
        return Verdict(confidence, self._on_cpu(speedup.input_overlap(self.input_share)),
                       static.evidence + tuple(evidence), "the capture shows no prefetch at run time")

    def python_source(self, stage: Stage, static: Verdict) -> Verdict:
        """How much of the captured steps the Python generator behind ``stage`` (``from_generator``) took, and
        whether the step waited for input meanwhile: moving the data to tf.data ops saves at most the smaller."""
        if self.profile is None:
            return static
        found = self._runtime_iterator(stage)
        if found is None:
            return static.adding(Evidence.profile("this stage does not appear in the capture's tf.data iterators"))
        iterator, match = found
        share = self._share_of_steps(iterator)
        bottleneck = self.profile.bottleneck
        evidence = (Evidence.profile(f"runs as {iterator.name}: {iterator.self_time_ms:.0f} ms self time = {share:.0%} "
                                     f"of {self.profile.steps.count} steps; the step waits for input "
                                     f"{bottleneck.input_pct:.1f}% of the time ({bottleneck.input_class})",
                                     {"iterator": iterator.name, "stage_share": round(share, 4),
                                      "input_pct": bottleneck.input_pct}), *self._ambiguity(match))
        measured = Verdict(Confidence.POSSIBLE, None, static.evidence + evidence, static.note)
        not_bound = self._input_bound(measured, "a faster generator would not shorten the step")
        if not_bound is not None:
            return not_bound
        saved = min(share, self.input_share or 0.0)
        return replace(measured, confidence=self._confirmed(match),
                       speedup=self._on_cpu(speedup.bounded_by_share(saved, "Python generator time the step waits "
                                                                              "for")))

    @staticmethod
    def _ambiguity(match: PipelineMatch) -> list[Evidence]:
        if match.candidates <= 1:
            return []
        return [Evidence.profile(f"{match.candidates} pipelines of the repo match this runtime chain equally well, "
                                 "and the ops they run do not tell them apart: the capture cannot say which one ran")]

    @staticmethod
    def _confirmed(match: PipelineMatch) -> Confidence:
        """Confirmed when the capture shows this very pipeline ran; likely when several match it equally well."""
        return Confidence.CONFIRMED if match.candidates <= 1 else Confidence.LIKELY

    # -- Python functions in the graph ----------------------------------------------------------------------------
    def python_function_ops(self, site: CallSite, context: HotContext,
                            others: Sequence[tuple[CallSite, HotContext]], static: Verdict) -> Verdict:
        """Did this Python-function call (run per element or per compiled step, as ``context`` says) take a share of
        the captured steps? The capture knows the op kind (``py_function`` runs as EagerPyFunc, ``numpy_function``
        as PyFunc) and which pipelines ran, not which call site: ``others``, the other hot call sites, that could
        have made the same kind of op in code that ran keep it from being confirmed on its own."""
        if self.profile is None:
            return static
        kinds = op_types_of(site.names)
        named = "/".join(sorted(kinds))
        share = sum(op.share_pct for op in self.profile.top_ops if op.op_type in kinds) / 100.0
        if not share:
            return Verdict(Confidence.POSSIBLE, None, static.evidence + (Evidence.profile(
                f"no {named} op among the capture's top ops: this call did not take time in it"),), static.note)
        if not self._ran(context):
            return Verdict(Confidence.POSSIBLE, None, static.evidence + (Evidence.profile(
                "the pipeline that maps it does not appear in the capture's tf.data iterators: the "
                f"{named} time came from elsewhere"),), static.note)
        evidence = [Evidence.profile(f"{named} ops (this call's kind) take {share:.1%} of the step time",
                                     {"share": share, "op_types": sorted(kinds)})]
        rivals = [o for o, c in others if o is not site and kinds & op_types_of(o.names) and self._ran(c)]
        if rivals:
            evidence.append(Evidence.profile(
                f"{len(rivals) + 1} call sites that ran could make these {named} ops ("
                + ", ".join(r.module.location(r.node).display for r in rivals[:3])
                + "): the capture does not tell them apart"))
        input_share = self.input_share
        if context.in_dataset and input_share is not None and input_share < share:
            # tf.data runs the map beside the step: only the time the step waits for input can be saved.
            estimate = speedup.bounded_by_share(input_share, "input wait", f"{named} ops {share:.0%} of "
                                                "step, under the GIL; only TensorFlow ops help")
        else:
            estimate = speedup.bounded_by_share(share, f"{named} ops",
                                                "the GIL serializes them: only TensorFlow ops recover it")
        return Verdict(Confidence.LIKELY if rivals else Confidence.CONFIRMED, estimate,
                       static.evidence + tuple(evidence), static.note)

    def _ran(self, context: HotContext) -> bool:
        """The code runs in the capture as far as it can tell: a mapped function's pipeline ran; a compiled step is
        taken to run (the capture names no call site of it)."""
        return context.stage is None or self._runtime_iterator(context.stage) is not None

    # -- host work between steps ----------------------------------------------------------------------------------
    def host_gap(self, every: int, static: Verdict, hook: FunctionInfo | None = None,
                 registration: Registration | None = None, fixed_ms: float = 0.0) -> Verdict:
        """How long the host works between Keras steps, and what running the work every ``every`` batches saves.

        For a callback's ``hook``, the gap is its cost only if the hook ran: the python tracer's frames show it (or,
        when the capture recorded frames, show that it did not run); a hook that sleeps ``fixed_ms`` on every call
        cannot have run every step when the gap is far shorter. Without frames the gap is put on the hook when every
        run registers it (the training call is always given it), or when some runs do (under a flag) and the gap is
        far longer than Keras' own work between steps, so that something registered ran. ``registration`` None:
        not a question (host work of Keras itself)."""
        if self.profile is None or self.profile.host_gaps is None:
            return static
        gaps = self.profile.host_gaps
        share = gaps.share_pct / 100
        frames = self._frames_of(hook)
        evidence = [*frames, Evidence.profile(
            f"the host waits {gaps.avg_ms:.1f} ms between steps on average, {share:.0%} of the step time",
            {"avg_ms": gaps.avg_ms, "share": share})]
        measured = Verdict(Confidence.POSSIBLE, None, static.evidence + tuple(evidence), static.note)
        if hook is not None and gaps.frames and not frames:
            return measured.adding(Evidence.contradiction(
                f"the python tracer recorded the host's work between steps and `{hook.name}` is not in it: it did "
                "not run in this capture"))
        if hook is not None and fixed_ms and gaps.avg_ms < fixed_ms / 2:
            return measured.adding(Evidence.contradiction(
                f"`{hook.name}` sleeps {fixed_ms:.0f} ms on every call, but the host waits only {gaps.avg_ms:.1f} ms "
                "between steps: it did not run every step in this capture"))
        estimate = speedup.throttle(share, every)
        if share < CONFIRMED_GAP_SHARE:
            return replace(measured, speedup=estimate)
        if frames or registration in (None, Registration.EVERY_RUN):
            return replace(measured, confidence=Confidence.CONFIRMED, speedup=estimate)
        if registration is Registration.SOME_RUNS and gaps.avg_ms >= KERAS_OWN_GAP_FACTOR * KERAS_OWN_GAP_MS:
            return replace(measured.adding(Evidence.profile(
                f"the training registers it under a condition; the gap is over {KERAS_OWN_GAP_FACTOR}x Keras' own "
                f"work between steps (under {KERAS_OWN_GAP_MS:.0f} ms), so per-batch work was registered in this "
                "run")), confidence=Confidence.CONFIRMED, speedup=estimate)
        unseen = "does not register it on every run" if registration is Registration.SOME_RUNS else \
            "is given it nowhere advisor can see"
        return replace(measured.adding(Evidence.profile(
            f"the training {unseen}, and the capture has no python tracer frames to show it ran: the gap may be "
            "other host work (`advisor profile --python-tracer` tells)")), confidence=Confidence.LIKELY,
            speedup=estimate)

    def _frames_of(self, hook: FunctionInfo | None) -> list[Evidence]:
        """The python tracer's frames (``$train.py:24 on_train_batch_end``) that are ``hook``: the same file (for a
        notebook, the cell its kernel ran), the same function name, a line inside the definition (the tracer names
        the ``def`` line, or a decorator's)."""
        if hook is None:
            return []
        position = hook.module.position(hook.node)
        found = []
        for frame in self.profile.host_gaps.frames:
            name = frame.frame.lstrip("$")
            where, _, function = name.partition(" ")
            filename, _, line = where.rpartition(":")
            offset = hook.module.frame_offset(filename)
            if function == hook.name and offset is not None and line.isdigit() \
                    and position.start.line <= int(line) + offset <= position.end.line:
                found.append(Evidence.profile(
                    f"python tracer: `{name}` ran {frame.total_ms:.1f} ms in {frame.count} calls between steps",
                    {"frame": name, "total_ms": frame.total_ms, "count": frame.count}))
        return found

    def host_sync(self, static: Verdict) -> Verdict:
        """A per-step read of a tensor's value costs most where steps run asynchronously (GPU, TPU)."""
        hardware = self.profile.hardware.type if self.profile is not None else None
        if hardware not in ASYNC_DEVICES:
            return static
        return Verdict(Confidence.LIKELY, static.speedup, static.evidence + (Evidence.profile(
            f"the capture ran on {hardware}, which runs steps asynchronously unless the host reads a value"),),
            static.note)

    def per_step_cost(self, loops: Sequence[tuple[ModuleInfo, cst.For | cst.While]], static: Verdict) -> Verdict:
        """A per-step cost, weighed against its loops: at most possible in loops that run only a few steps in all
        (``for i in range(10):``, as the source writes them), or whose every iteration also runs a whole training
        of another model (a search controller fitting each child network it samples)."""
        if static.confidence is not Confidence.LIKELY or not loops:
            return static
        runs = [self.queries.loop_runs(module, loop) for module, loop in loops]
        if None not in runs and max(runs) < FEW_STEPS:
            return Verdict(Confidence.POSSIBLE, static.speedup, static.evidence + (Evidence.source(
                f"the loop runs {max(runs)} steps in all: a per-step cost adds up to little"),), static.note)
        nested = [training for module, loop in loops if (training := self.queries.whole_training_in(module, loop))]
        if len(nested) < len(loops):
            return static
        fit = nested[0]
        return Verdict(Confidence.POSSIBLE, static.speedup, static.evidence + (Evidence.source(
            f"every iteration also trains a whole model (`{fit.module.node_code(fit.node.func)}(...)`, "
            f"{fit.module.location(fit.node).display}): a per-step cost is a small share of it"),), static.note)

    # -- training steps -------------------------------------------------------------------------------------------
    def eager_dispatch(self, static: Verdict) -> Verdict:
        """Does the captured loop dispatch its ops eagerly, and how much of its step is outside kernels?"""
        profile = self.profile
        if profile is None:
            return static
        if profile.host_gaps is not None:  # Keras step calls: the capture is of `fit`, not of a custom loop
            return static.adding(Evidence.profile("the capture's steps are Keras `fit` steps: it does not show "
                                                  "this loop"))
        eager, step_ms = profile.eager, profile.steps.step_time_ms.avg
        evidence = static.evidence + (Evidence.profile(
            f"the captured loop dispatches {eager.ops_per_step:.0f} ops per step from Python; outside kernels (Python, "
            f"op dispatch) it spends {eager.share_pct:.0f}% of its {step_ms:.1f} ms step (kernels "
            f"{eager.kernel_ms_per_step:.1f} ms, dispatch calls {eager.dispatch_ms_per_step:.1f} ms)",
            {"ops_per_step": eager.ops_per_step, "eager_share_pct": eager.share_pct, "step_ms": step_ms,
             "kernel_ms_per_step": eager.kernel_ms_per_step, "dispatch_ms_per_step": eager.dispatch_ms_per_step}),)
        if eager.ops_per_step < EAGER_OPS_MIN:
            return Verdict(Confidence.POSSIBLE, None, evidence + (Evidence.contradiction(
                f"only {eager.ops_per_step:.0f} ops per step are dispatched eagerly: the captured step already runs "
                "compiled"),), static.note)
        gain = speedup.bounded_by_share(eager.share_pct / 100, "Python and eager dispatch",
                                        "compiling also fuses the kernels, which can gain more")
        confidence = Confidence.CONFIRMED if eager.share_pct >= CONFIRMED_EAGER_SHARE_PCT else static.confidence
        return Verdict(confidence, gain, evidence, static.note)

    def tracing(self, function_name: str | None, static: Verdict) -> Verdict:
        """Did the ``tf.function`` compiling the Python function ``function_name`` trace more than once in the
        capture? Only traces inside the capture count: a step that builds its optimizer's variables on the first
        call traces twice at the start (``total_traces`` 2) and never again."""
        if self.profile is None or function_name is None:
            return static
        traced = next((f for f in self.profile.tracing if f.function == function_name), None)
        if traced is None:
            return static.adding(Evidence.profile(f"`{function_name}` is not called in the capture"))
        share = traced.tracing_ms / self._captured_ms if self._captured_ms else 0.0
        measured = static.adding(Evidence.profile(
            f"`{function_name}` traced {traced.traces} times in {traced.calls} calls during the capture, building "
            f"graphs for {traced.tracing_ms:.0f} ms ({share:.0%} of the captured steps' time); {traced.total_traces} "
            f"traces since the program started",
            {"function": function_name, "traces": traced.traces, "calls": traced.calls,
             "tracing_ms": traced.tracing_ms, "total_traces": traced.total_traces, "tracing_share": share}))
        if traced.traces > 1:
            return replace(measured, confidence=Confidence.CONFIRMED,
                           speedup=speedup.bounded_by_share(share, "tracing"))
        if traced.traces == 0 and traced.calls > 1:
            return replace(measured.adding(Evidence.contradiction(
                f"all {traced.calls} captured calls of `{function_name}` reused a graph traced earlier")),
                confidence=Confidence.POSSIBLE, speedup=None)
        return measured

    # -- device compute -------------------------------------------------------------------------------------------
    def device_precision(self, static: Verdict) -> Verdict | None:
        """How much of the step is float32 device compute that 16-bit units would run faster; None when the capture
        already computes mostly in 16 bits (nothing to report)."""
        device = self.profile.device if self.profile is not None else None
        if device is None:  # a static run, or a target device given without a capture of it
            return static
        compute_pct, sixteen_pct = device.compute_share_pct, device.compute_16bit_pct
        eligible, used = device.tensor_core_eligible_ops, device.tensor_core_used_ops
        evidence = Evidence.profile(
            f"device compute is {compute_pct:.0f}% of the step; {eligible} tensor-core-eligible ops, {used} using "
            f"tensor cores" + (f"; {sixteen_pct:.0f}% of device compute in 16-bit ops" if sixteen_pct is not None
                               else ""),
            {"compute_share_pct": compute_pct, "compute_16bit_pct": sixteen_pct, "eligible": eligible, "used": used})
        if sixteen_pct is not None and sixteen_pct >= ALREADY_16BIT_PCT:
            return None
        fp32_share = compute_pct / 100.0 * (1.0 - (sixteen_pct or 0.0) / 100.0)
        factor = SIXTEEN_BIT_SPEEDUP.get(self.target_device or "gpu", SIXTEEN_BIT_SPEEDUP["gpu"])
        return Verdict(Confidence.CONFIRMED if eligible > used else Confidence.LIKELY,
                       speedup.amdahl(fp32_share, factor, "fp32 device compute"), static.evidence + (evidence,),
                       static.note)

    def padded_dimension(self, size: int, multiple: int, static: Verdict) -> Verdict:
        """What rounding ``size`` up to ``multiple`` saves, on the capture's share of device compute."""
        device = self.profile.device if self.profile is not None else None
        if device is None:
            return static
        share = device.compute_share_pct
        return Verdict(static.confidence, speedup.padded_dimension(size, multiple, share / 100.0),
                       static.evidence + (Evidence.profile(f"device compute is {share:.0f}% of the step time",
                                                           {"device_compute_share": share / 100.0}),), static.note)

    def runs_as_written(self, finding: Finding, module: ModuleInfo) -> Finding:
        """A finding on code that a run with the defaults the source sets skips (``if FLAGS.mode == "eager_tf":``
        with ``mode`` defaulting to ``"fit"``), or that a run never gets to (a statement before it raises whatever
        the data: a name nothing imports, a call with arguments its function rejects), or that the project keeps in
        a folder named for code it no longer runs (``old/``, ``Trash/``) is at most possible: that code trains only
        when the user changes a setting, or fixes or revives the code. One a capture confirms stands: the captured
        run took that way."""
        if finding.confidence is not Confidence.LIKELY:
            return finding
        line = finding.location.line
        archive = self.queries.index.archive_folder(module)
        branch = self.queries.skipped_by_default(module, line) if archive is None else None
        if archive is not None:
            why = Evidence.source(f"the file is kept in `{archive}/`, a folder named for code the project no longer "
                                  "runs")
        elif branch is not None:
            why = Evidence.source(f"a run with the defaults the source sets skips this code: `{branch.test}` "
                                  f"({branch.location.display}) is {branch.value} with them")
        else:
            stop = self.queries.stops_before(module, line)
            if stop is None:
                return finding
            why = Evidence.source(f"a run stops before it gets here: {stop.cause} ({stop.location.display})")
        return replace(finding, confidence=Confidence.POSSIBLE, evidence=[*finding.evidence, why])
