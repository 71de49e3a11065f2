"""Links from the profile to the source: which runtime tf.data iterators ran which pipeline of the repo.

A capture names iterators by the datasets TensorFlow actually ran, after its rewrites: ``ds.map(f).batch(64)``
may run as ``Iterator::Root::Prefetch::MapAndBatch`` (fused, with an injected prefetch). Each runtime stage is
expanded into the source operations it stands for (``MapAndBatch`` -> ``map``, ``batch``), and source pipelines
are aligned to runtime chains by their longest common subsequence of operations. Prefetch is left out of the
alignment because TensorFlow injects it at run time.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Iterable, Sequence

from .profile.facts import Iterator
from .source.facts import PASS_THROUGH_OPS, Pipeline, Stage

# Runtime iterator stage -> the source operations it runs, in source order.
RUNTIME_OPS: dict[str, tuple[str, ...]] = {
    "TensorSlice": ("from_tensor_slices",), "Tensor": ("from_tensors",), "Range": ("range",),
    "TFRecord": ("TFRecordDataset",), "TextLine": ("TextLineDataset",),
    "FixedLengthRecord": ("FixedLengthRecordDataset",), "Generator": ("from_generator",),
    "FlatMap": ("flat_map",), "Map": ("map",), "ParallelMap": ("map",), "ParallelMapV2": ("map",),
    "MapAndBatch": ("map", "batch"), "Batch": ("batch",), "BatchV2": ("batch",), "ParallelBatch": ("batch",),
    "PaddedBatch": ("padded_batch",), "PaddedBatchV2": ("padded_batch",), "Shuffle": ("shuffle",),
    "ShuffleAndRepeat": ("shuffle", "repeat"), "Repeat": ("repeat",), "Prefetch": ("prefetch",),
    "Cache": ("cache",), "MemoryCache": ("cache",), "Filter": ("filter",), "ParallelFilter": ("filter",),
    "Take": ("take",), "Skip": ("skip",), "Shard": ("shard",), "Interleave": ("interleave",),
    "ParallelInterleave": ("interleave",), "ParallelInterleaveV4": ("interleave",), "Zip": ("zip",),
    "Concatenate": ("concatenate",), "Unbatch": ("unbatch",), "Window": ("window",), "Scan": ("scan",),
}
# Runtime stages that run their function on several elements at once when parallelism > 1.
PARALLEL_STAGES = frozenset({"ParallelMap", "ParallelMapV2", "MapAndBatch", "ParallelInterleave",
                             "ParallelInterleaveV4", "ParallelBatch", "ParallelFilter"})
NOT_ALIGNED = PASS_THROUGH_OPS | {"prefetch"}
# Source operations that run as several runtime stages, in the runtime's terms: list_files is a TensorSlice of the
# file names, shuffled unless shuffle=False.
SOURCE_EXPANSIONS: dict[str, tuple[str, ...]] = {"list_files": ("from_tensor_slices", "shuffle")}

# The op types a capture's framework op stats show for a TensorFlow API the source calls, by canonical name (a name
# or a prefix ending in "_"). py_function runs as EagerPyFunc (eager tensors in Python), numpy_function and TF1's
# py_func as PyFunc. Only APIs with a distinctive op are listed: they tell pipelines of the same shape apart.
OP_TYPES_OF_API: dict[str, frozenset[str]] = {
    "tensorflow.py_function": frozenset({"EagerPyFunc"}),
    "tensorflow.numpy_function": frozenset({"PyFunc", "PyFuncStateless"}),
    "tensorflow.py_func": frozenset({"PyFunc", "PyFuncStateless"}),
    "tensorflow.image.resize": frozenset({"ResizeBilinear", "ResizeBicubic", "ResizeNearestNeighbor",
                                          "ResizeArea", "ScaleAndTranslate"}),
    "tensorflow.image.adjust_saturation": frozenset({"AdjustSaturation"}),
    "tensorflow.image.random_saturation": frozenset({"AdjustSaturation"}),
    "tensorflow.image.adjust_hue": frozenset({"AdjustHue"}),
    "tensorflow.image.random_hue": frozenset({"AdjustHue"}),
    "tensorflow.image.adjust_contrast": frozenset({"AdjustContrastv2"}),
    "tensorflow.image.random_contrast": frozenset({"AdjustContrastv2"}),
    "tensorflow.io.decode_jpeg": frozenset({"DecodeJpeg"}),
    "tensorflow.image.decode_jpeg": frozenset({"DecodeJpeg"}),
    "tensorflow.io.decode_png": frozenset({"DecodePng"}),
    "tensorflow.io.decode_image": frozenset({"DecodeImage", "DecodeJpeg", "DecodePng"}),
    "tensorflow.io.parse_single_example": frozenset({"ParseExampleV2", "ParseSingleExample"}),
    "tensorflow.io.parse_example": frozenset({"ParseExampleV2"}),
    "tensorflow.io.read_file": frozenset({"ReadFile"}),
    "tensorflow.signal.stft": frozenset({"RFFT"}),
}


def op_types_of(names: Iterable[str]) -> frozenset[str]:
    """The distinctive op types calls of these canonical names run as (see :data:`OP_TYPES_OF_API`)."""
    return frozenset().union(*(OP_TYPES_OF_API.get(name, frozenset()) for name in names))


@dataclass(frozen=True)
class RuntimeChain:
    """One root-to-leaf chain of runtime iterators, listed source first."""

    iterators: tuple[Iterator, ...]

    @property
    def has_prefetch(self) -> bool:
        return any(it.stage == "Prefetch" for it in self.iterators)

    def expanded(self) -> list[tuple[str, Iterator]]:
        """(source operation, runtime iterator) pairs, source first."""
        return [(op, it) for it in self.iterators for op in RUNTIME_OPS.get(it.stage, (it.stage.lower(),))]


@dataclass(frozen=True)
class PipelineMatch:
    """How well a source pipeline lines up with a runtime chain, and which iterator runs each source stage."""

    pipeline: Pipeline
    chain: RuntimeChain
    score: float  # aligned operations / operations of the longer side, 0..1
    iterator_of: dict[int, Iterator]  # id(stage.node) -> runtime iterator
    candidates: int  # how many source pipelines matched this chain equally well


def runtime_chains(iterators: Sequence[Iterator]) -> list[RuntimeChain]:
    """The leaf-to-root chains of an iterator tree (``Iterator::Root::A::B`` has parent ``Iterator::Root::A``)."""
    by_name = {it.name: it for it in iterators}
    names = set(by_name)
    leaves = [n for n in names if not any(other.startswith(n + "::") for other in names)]
    chains = []
    for leaf in sorted(leaves):
        parts = leaf.split("::")
        path = ["::".join(parts[:i]) for i in range(len(parts), 0, -1)]
        chain = tuple(by_name[p] for p in path if p in by_name and by_name[p].stage not in ("Root", "Iterator"))
        if chain:
            chains.append(RuntimeChain(chain))
    return chains


def _lcs_pairs(source: list[str], runtime: list[str]) -> list[tuple[int, int]]:
    """Index pairs of a longest common subsequence of two operation lists."""
    n, m = len(source), len(runtime)
    table = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            table[i][j] = table[i + 1][j + 1] + 1 if source[i] == runtime[j] else max(table[i + 1][j],
                                                                                      table[i][j + 1])
    pairs, i, j = [], 0, 0
    while i < n and j < m:
        if source[i] == runtime[j]:
            pairs.append((i, j))
            i, j = i + 1, j + 1
        elif table[i + 1][j] >= table[i][j + 1]:
            i += 1
        else:
            j += 1
    return pairs


def _align(pipeline: Pipeline, chain: RuntimeChain) -> tuple[float, dict[int, Iterator]]:
    stages: list[tuple[str, Stage]] = [(op, s) for s in pipeline.stages if s.op not in NOT_ALIGNED
                                       for op in SOURCE_EXPANSIONS.get(s.op, (s.op,))]
    runtime = [(op, it) for op, it in chain.expanded() if op not in NOT_ALIGNED]
    pairs = _lcs_pairs([op for op, _ in stages], [op for op, _ in runtime])
    longer = max(len(stages), len(runtime), 1)
    return len(pairs) / longer, {id(stages[i][1].node): runtime[j][1] for i, j in pairs}


def separate_by_ops(matches: list[PipelineMatch], captured: frozenset[str],
                    ops_of: Callable[[Pipeline], frozenset[str]]) -> list[PipelineMatch]:
    """Pipelines of the same shape tie for a runtime chain; the distinctive ops their functions run (``ops_of``:
    Python-function, decode and image ops) can tell them apart, against ``captured`` (the capture's op types).

    One tied pipeline ran when it alone runs ops the capture shows, and no pipeline linked to another chain runs
    them too; or when the capture shows none of the tied pipelines' distinctive ops and every other one has some
    (the one without ran: a branch that maps TensorFlow ops, beside branches that call Python)."""
    by_chain: dict[int, list[PipelineMatch]] = {}
    for match in matches:
        by_chain.setdefault(id(match.chain), []).append(match)
    separated = []
    for chain, tied in by_chain.items():
        ran = None
        if len({id(m.pipeline) for m in tied}) > 1:
            shown = [m for m in tied if ops_of(m.pipeline) & captured]
            elsewhere = frozenset().union(*(ops_of(m.pipeline) for key, others in by_chain.items() if key != chain
                                            for m in others))
            plain = [m for m in tied if not ops_of(m.pipeline)]
            if len(shown) == 1 and not ops_of(shown[0].pipeline) & captured & elsewhere:
                ran = shown[0]
            elif not shown and len(plain) == 1:
                ran = plain[0]
        separated += [replace(ran, candidates=1)] if ran is not None else tied
    return separated


def match_pipelines(pipelines: Sequence[Pipeline], iterators: Sequence[Iterator],
                    min_score: float = 0.5) -> list[PipelineMatch]:
    """For each runtime chain, the source pipelines that match it best (several when tied)."""
    matches: list[PipelineMatch] = []
    for chain in runtime_chains(iterators):
        scored = [(pipeline, *_align(pipeline, chain)) for pipeline in pipelines]
        scored = [s for s in scored if s[1] >= min_score]
        if not scored:
            continue
        best = max(score for _, score, _ in scored)
        # Training pipelines are what a training capture mostly runs: they win ties against validation ones.
        tied = [s for s in scored if s[1] == best]
        training = [s for s in tied if s[0].sink.is_training]
        winners = training or tied
        distinct_stage_sets = {tuple(id(s.node) for s in p.stages) for p, _, _ in winners}
        for pipeline, score, iterator_of in winners:
            matches.append(PipelineMatch(pipeline, chain, score, iterator_of, len(distinct_stage_sets)))
    return matches
