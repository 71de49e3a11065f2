"""What a capture says about a training run, as plain typed data: rules, verdicts and every report read these.

Built by :func:`advisor.profile.findings.build_findings` from the profiler plugin's converters and the raw trace;
``ProfileFindings.to_json`` is the report's ``profile`` object. Percentages are 0-100; times are milliseconds unless
named ``_us``. A leaf: it imports only the standard library.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class Hardware:
    """``type``: the converter's hardware type (``CPU_ONLY``, ``GPU``, ``TPU``); ``devices``: device plane names
    (``/device:GPU:0``), or the host names on a CPU-only capture."""

    type: str
    devices: list[str]


@dataclass(frozen=True)
class StepTime:
    """Step time statistics over the captured steps, in ms."""

    avg: float
    stddev: float
    min: float
    max: float


@dataclass(frozen=True)
class Steps:
    """``count`` steps found; ``source`` is ``markers`` (TraceMe step markers; numbers from the converter) or
    ``trace`` (recovered from trace events, see ``trace.py``); ``kind`` says how: ``markers``, ``keras``
    (``multi_step_on_iterator`` calls) or ``loop`` (GetNext calls of a custom loop)."""

    count: int
    source: str
    kind: str
    step_time_ms: StepTime


@dataclass(frozen=True)
class Bottleneck:
    """XProf's classification: ``input_class`` / ``kernel_launch_class`` / ``all_other_class`` are ``high``,
    ``moderate`` or ``low`` (input >= 20% high, >= 5% moderate; the others >= 15 / >= 3). ``input_pct`` is the
    share of step time waiting for input. ``statement`` is the one-line conclusion. ``source``: ``converter`` when
    the converter classified marked steps, ``trace`` when advisor applied the same thresholds to recovered steps."""

    input_class: str
    input_pct: float
    kernel_launch_class: str
    all_other_class: str
    statement: str
    source: str


@dataclass(frozen=True)
class Iterator:
    """One tf.data iterator as it ran: ``name`` as in the capture (``Iterator::Root::Prefetch::MapAndBatch``),
    ``stage`` its last component (``MapAndBatch``), ``dataset`` the runtime dataset it iterates (e.g.
    ``fused(MapDataset:2,BatchDatasetV2:3)`` after TF's rewrites), ``count`` calls, ``time_ms`` / ``self_time_ms``
    over the capture, and the runtime settings when the iterator has them: ``parallelism`` (1 = serial),
    ``autotune``, ``batch_size``, ``buffer_size`` (prefetch/shuffle)."""

    name: str
    stage: str
    dataset: str | None
    count: int
    time_ms: float
    self_time_ms: float
    parallelism: int | None
    autotune: bool | None
    batch_size: int | None
    buffer_size: int | None


@dataclass(frozen=True)
class InputPipeline:
    """The runtime iterator tree, by self time. ``has_prefetch``: a Prefetch iterator ran (written by the user or
    injected by TF); ``dominant_stage``: the stage with the most self time (None without iterators)."""

    iterators: list[Iterator]
    has_prefetch: bool
    dominant_stage: str | None
    cpu_budget: int | None = None  # cores tf.data may use (the root iterator's stat): bounds useful parallelism


@dataclass(frozen=True)
class Op:
    """A TensorFlow op by self time: ``op_type`` (``MatMul``, ``EagerPyFunc``), ``name``, ``host_or_device``,
    ``occurrences``, ``self_time_ms``, ``share_pct`` of all non-idle self time on its side, and ``is_py_func``
    (``tf.py_function`` / ``tf.numpy_function`` run Python under the GIL)."""

    op_type: str
    name: str
    host_or_device: str
    occurrences: int
    self_time_ms: float
    share_pct: float
    is_py_func: bool


@dataclass(frozen=True)
class PythonFrame:
    """A Python frame seen between steps (python tracer): ``frame`` as ``file.py:LINE function``, ``total_ms``
    inclusive time over the capture, ``count`` calls."""

    frame: str
    total_ms: float
    count: int


@dataclass(frozen=True)
class HostGaps:
    """Host time between Keras step calls, where callbacks and other Python run: ``avg_ms`` per step,
    ``share_pct`` of wall time, and ``frames`` (empty unless the capture has python tracer events)."""

    avg_ms: float
    share_pct: float
    frames: list[PythonFrame]


@dataclass(frozen=True)
class Eager:
    """Ops dispatched one at a time from Python, per recovered step (raw trace of the python thread; the
    converters' eager columns read 0 on these captures). ``ops_per_step``: ``EagerExecute`` events (an eager train
    step dispatches hundreds, a compiled one about two: the function and the input's GetNext);
    ``dispatch_ms_per_step``: time in the dispatch calls (``TFE_Py_FastPathExecute_C``, ``TFE_Py_ExecuteCancelable``),
    kernels included; ``kernel_ms_per_step``: time in kernels (``EagerKernelExecute``; a compiled function's whole
    graph runs in one); ``share_pct``: the share of step time the python thread spends outside kernels (Python, op
    dispatch, and in Keras the gap between steps): the most that compiling the step can remove."""

    ops_per_step: float
    dispatch_ms_per_step: float
    kernel_ms_per_step: float
    share_pct: float


@dataclass(frozen=True)
class TracedFunction:
    """A ``tf.function`` called in the capture: ``function`` (the Python function's name, e.g. ``train_step``),
    ``calls``, ``traces`` (calls that traced a new graph), ``tracing_ms`` (time building graphs in those calls) and
    ``total_traces`` (its traces since the program started, the ones before the capture included)."""

    function: str
    calls: int
    traces: int
    tracing_ms: float
    total_traces: int


@dataclass(frozen=True)
class Memory:
    """``peak_bytes``: the highest peak in use of any allocator; ``by_allocator``: each allocator's peak."""

    peak_bytes: int
    by_allocator: dict[str, int]


@dataclass(frozen=True)
class Convolution:
    """A convolution from op_profile with its ``layout`` (XLA's dimension order and padding) and time in ps."""

    name: str
    layout: Any
    time_ps: int


@dataclass(frozen=True)
class Device:
    """Accelerator facts (only on captures with a device plane): ``compute_share_pct`` of step time in device
    compute, ``compute_16bit_pct`` of device compute in 16-bit ops (None when the converter does not report it),
    ``tensor_core_eligible_ops`` / ``tensor_core_used_ops`` (ops whose kernels could / did use tensor cores),
    ``eligible_not_using`` (those ops' names) and ``convolutions`` (op_profile layout/padding)."""

    compute_share_pct: float
    compute_16bit_pct: float | None
    tensor_core_eligible_ops: int
    tensor_core_used_ops: int
    eligible_not_using: list[str]
    convolutions: list[Convolution]


@dataclass
class ProfileFindings:
    """Everything advisor read from one profiling run. ``path``: what the user passed; ``run``: the run's name;
    ``hosts``: the host captures used; ``breakdown_pct``: step time by ``input``, ``host_compute``,
    ``device_compute``, ``kernel_launch``, ``compile``, ``outside_step`` (host gaps between steps), ``other``,
    summing to about 100; ``breakdown_source`` says whether it came from the converter or the trace.
    ``host_gaps``: None for custom loops; ``eager``: eager op dispatch per step; ``tracing``: the tf.functions
    called, most tracing time first; ``device``: None without a device; ``warnings``: skipped captures, several
    hosts, and the like. Device-to-host copies per step are not reported: CPU-only captures have none (tensors
    already live in host memory), so only a GPU capture could show them."""

    path: str
    run: str
    hosts: list[str]
    hardware: Hardware
    steps: Steps
    breakdown_pct: dict[str, float]
    breakdown_source: str
    bottleneck: Bottleneck
    input_pipeline: InputPipeline
    top_ops: list[Op]
    op_types: list[str] | None  # every op type that ran (top_ops holds the costliest); None: not read
    host_gaps: HostGaps | None
    eager: Eager
    tracing: list[TracedFunction]
    memory: Memory
    device: Device | None
    warnings: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """The report's ``profile`` object: these fields with the same names, floats rounded to 0.01."""
        return _rounded(asdict(self))

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "ProfileFindings":
        """The findings a ``to_json`` object describes (e.g. a report's ``profile``, or one written by hand)."""
        steps, pipeline, gaps, device = data["steps"], data["input_pipeline"], data["host_gaps"], data["device"]
        return cls(
            path=data["path"], run=data["run"], hosts=list(data["hosts"]), hardware=Hardware(**data["hardware"]),
            steps=Steps(steps["count"], steps["source"], steps["kind"], StepTime(**steps["step_time_ms"])),
            breakdown_pct=dict(data["breakdown_pct"]), breakdown_source=data["breakdown_source"],
            bottleneck=Bottleneck(**data["bottleneck"]),
            input_pipeline=InputPipeline([Iterator(**it) for it in pipeline["iterators"]], pipeline["has_prefetch"],
                                         pipeline["dominant_stage"], pipeline.get("cpu_budget")),
            top_ops=[Op(**op) for op in data["top_ops"]], op_types=data.get("op_types"),
            host_gaps=HostGaps(gaps["avg_ms"], gaps["share_pct"], [PythonFrame(**f) for f in gaps["frames"]])
            if gaps is not None else None,
            eager=Eager(**data["eager"]), tracing=[TracedFunction(**t) for t in data["tracing"]],
            memory=Memory(**data["memory"]),
            device=Device(**{**device, "convolutions": [Convolution(**c) for c in device["convolutions"]]})
            if device is not None else None,
            warnings=list(data.get("warnings", [])),
        )


def _rounded(value: Any) -> Any:
    if isinstance(value, float):
        return round(value, 2)
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_rounded(v) for v in value]
    return value
