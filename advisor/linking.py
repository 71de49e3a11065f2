"""Links from the profile to the source: which runtime tf.data iterators ran which pipeline of the repo.

A capture names iterators by the datasets TensorFlow actually ran, after its rewrites: ``ds.map(f).batch(64)``
may run as ``Iterator::Root::Prefetch::MapAndBatch`` (fused, with an injected prefetch). Each runtime stage is
expanded into the source operations it stands for (``MapAndBatch`` -> ``map``, ``batch``), and source pipelines
are aligned to runtime chains by their longest common subsequence of operations. Prefetch is left out of the
alignment because TensorFlow injects it at run time.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

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
    stages: list[Stage] = [s for s in pipeline.stages if s.op not in NOT_ALIGNED]
    runtime = [(op, it) for op, it in chain.expanded() if op not in NOT_ALIGNED]
    pairs = _lcs_pairs([s.op for s in stages], [op for op, _ in runtime])
    longer = max(len(stages), len(runtime), 1)
    return len(pairs) / longer, {id(stages[i].node): runtime[j][1] for i, j in pairs}


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
