"""What the committed captures of the sample scripts show (no TensorFlow needed).

The captures were taken on a shared 2-core CPU machine, so times move a lot between captures; the assertions are on
classifications and on comparisons within one capture, with tolerant ranges elsewhere.
"""

from __future__ import annotations

import json

import pytest
from rich.console import Console

from advisor.profile import discovery, trace
from advisor.profile.xspace_reader import CaptureFile
from advisor.report.profile_summary import render_profile_summary
from profile_fixtures import capture_file, load_sample


def test_input_bound_is_input_bound_with_a_serial_map_and_no_prefetch():
    for name in ("input_bound", "input_bound_markers"):
        findings = load_sample(name)
        assert findings.hardware.type == "CPU_ONLY"
        assert findings.bottleneck.input_class == "high", name
        assert findings.bottleneck.input_pct > 20
        pipeline = findings.input_pipeline
        assert not pipeline.has_prefetch
        assert pipeline.dominant_stage == "MapAndBatch"
        (map_stage,) = [it for it in pipeline.iterators if it.stage == "MapAndBatch"]
        assert map_stage.name == "Iterator::Root::MapAndBatch"
        assert map_stage.parallelism == 1 and map_stage.autotune is False
        assert map_stage.dataset.startswith("fused(MapDataset")


def test_tuned_is_not_input_bound_and_parallel():
    for name in ("tuned", "tuned_markers"):
        findings = load_sample(name)
        assert findings.bottleneck.input_class != "high", name
        assert findings.bottleneck.input_pct < load_sample("input_bound").bottleneck.input_pct
        assert findings.input_pipeline.has_prefetch
        (map_stage,) = [it for it in findings.input_pipeline.iterators if it.stage in ("ParallelMapV2", "MapAndBatch",
                                                                                       "ParallelMap")]
        assert map_stage.autotune is True
        assert map_stage.parallelism is None or map_stage.parallelism > 1


def test_steps_source_follows_markers():
    marked, unmarked = load_sample("input_bound_markers"), load_sample("input_bound")
    assert (marked.steps.source, marked.steps.kind, marked.breakdown_source) == ("markers", "markers", "converter")
    assert (unmarked.steps.source, unmarked.steps.kind, unmarked.breakdown_source) == ("trace", "keras", "trace")
    assert unmarked.bottleneck.source == "trace" and "no step markers" in unmarked.bottleneck.statement
    for findings in (marked, unmarked):
        assert 15 <= findings.steps.count <= 25
        assert sum(findings.breakdown_pct.values()) == pytest.approx(100, abs=1)


def test_trace_recovered_steps_agree_with_markers_in_the_same_capture():
    with CaptureFile(capture_file("input_bound_markers")) as capture:
        facts = trace.read_trace_facts(capture)
    marked = trace.recover_steps(facts)
    recovered = trace.recover_steps(facts, use_markers=False)
    assert (marked.source, recovered.kind) == ("markers", "keras")
    marked_avg = trace.step_time_summary(marked.durations_ms)["avg"]
    recovered_avg = trace.step_time_summary(recovered.durations_ms)["avg"]
    assert recovered_avg == pytest.approx(marked_avg, rel=0.1)
    marked_input = trace.trace_breakdown_pct(marked, facts["input_waits"])["input"]
    recovered_input = trace.trace_breakdown_pct(recovered, facts["input_waits"])["input"]
    assert recovered_input == pytest.approx(marked_input, abs=5)
    # ... and with what the converter computed from the markers.
    assert load_sample("input_bound_markers").steps.step_time_ms.avg == pytest.approx(marked_avg, rel=0.15)


def test_marked_and_unmarked_captures_of_one_workload_are_comparable():
    """Separate runs on a shared machine: only the order of magnitude is stable."""
    for workload in ("input_bound", "tuned"):
        marked = load_sample(f"{workload}_markers").steps.step_time_ms.avg
        unmarked = load_sample(workload).steps.step_time_ms.avg
        assert 0.4 < unmarked / marked < 2.5, workload


def test_custom_loop_steps_come_from_get_next_and_py_function_is_flagged():
    findings = load_sample("custom_loop")
    assert (findings.steps.source, findings.steps.kind) == ("trace", "loop")
    assert 15 <= findings.steps.count <= 25
    assert findings.host_gaps is None
    top = findings.top_ops[0]
    assert top.op_type == "EagerPyFunc" and top.is_py_func and top.share_pct > 50
    (map_stage,) = [it for it in findings.input_pipeline.iterators if it.stage == "MapAndBatch"]
    assert map_stage.parallelism == 1
    assert not findings.input_pipeline.has_prefetch


def test_slow_callback_spends_its_time_between_steps():
    findings = load_sample("slow_callback")
    assert findings.host_gaps is not None
    assert findings.host_gaps.avg_ms > 5  # the callback sleeps 5 ms and fsyncs after every batch
    assert findings.host_gaps.share_pct > 40
    assert findings.breakdown_pct["outside_step"] > 40
    assert findings.host_gaps.frames == []  # no python tracer in this capture


def test_python_tracer_frames_show_the_callback_in_host_gaps():
    findings = load_sample("slow_callback_python_tracer")
    frames = {f.frame: f for f in findings.host_gaps.frames}
    callback = [name for name in frames if name.startswith("train.py:") and name.endswith(" on_train_batch_end")]
    assert callback, sorted(frames)
    assert frames[callback[0]].count >= 10
    assert frames["time sleep"].total_ms >= 5 * frames["time sleep"].count * 0.9


def test_an_eager_step_dispatches_hundreds_of_ops_and_its_compiled_twin_two():
    eager, compiled = load_sample("eager_loop"), load_sample("eager_loop_tuned")
    assert (eager.steps.kind, compiled.steps.kind) == ("loop", "loop")
    assert eager.eager.ops_per_step > 100  # each op of forward pass, gradient and Adam update, one at a time
    assert compiled.eager.ops_per_step <= 3  # the function and the input's GetNext
    assert eager.eager.share_pct > 70
    assert eager.eager.dispatch_ms_per_step > 2 * eager.eager.kernel_ms_per_step
    assert compiled.eager.share_pct < eager.eager.share_pct - 20
    assert eager.tracing == []
    (step,) = compiled.tracing
    assert (step.function, step.traces) == ("train_step", 0)  # traced during the warm-up, before the capture
    assert step.calls >= compiled.steps.count and step.total_traces >= 1


def test_a_step_called_with_a_python_counter_traces_on_every_call():
    findings = load_sample("retracing")
    (step,) = [f for f in findings.tracing if f.function == "train_step"]
    assert step.calls >= 15 and step.traces == step.calls
    assert step.total_traces > step.traces  # the warm-up steps traced too
    captured_ms = findings.steps.count * findings.steps.step_time_ms.avg
    assert step.tracing_ms > 0.3 * captured_ms


def test_keras_steps_are_one_traced_function_called_per_step():
    findings = load_sample("tuned")
    (step,) = findings.tracing
    assert (step.function, step.traces) == ("multi_step_on_iterator", 0)
    assert step.calls >= findings.steps.count
    assert findings.eager.ops_per_step < 10
    assert findings.eager.share_pct < 30  # the compiled step's kernel fills it


def test_memory_and_hardware_and_identity():
    findings = load_sample("input_bound_markers")
    assert findings.memory.peak_bytes > 1_000_000
    assert findings.device is None
    assert findings.run == capture_file("input_bound_markers").parent.name
    assert findings.hosts == [capture_file("input_bound_markers").name]


def test_to_json_is_plain_json_with_the_documented_keys():
    data = load_sample("input_bound").to_json()
    json.dumps(data)
    assert set(data) >= {"path", "run", "hosts", "hardware", "steps", "breakdown_pct", "bottleneck",
                         "input_pipeline", "top_ops", "op_types", "host_gaps", "eager", "tracing", "memory", "device",
                         "warnings"}
    assert data["steps"]["source"] == "trace"
    assert set(data["steps"]["step_time_ms"]) == {"avg", "stddev", "min", "max"}
    assert data["bottleneck"]["input_class"] == "high"
    assert data["input_pipeline"]["iterators"][0]["name"].startswith("Iterator::")


def test_newest_run_is_the_default_and_runs_can_be_picked(copied_capture, tmp_path):
    older = copied_capture("tuned")
    newer_dir = older.parents[1] / "9999_01_01_00_00_00"
    newer_dir.mkdir()
    (newer_dir / older.name).write_bytes(capture_file("input_bound").read_bytes())
    logdir = tmp_path / "logdir"
    assert discovery.find_run(logdir).name == "9999_01_01_00_00_00"
    assert discovery.find_run(logdir, run=older.parent.name).directory == older.parent


def test_the_summary_shows_eager_dispatch_and_the_functions_traced_in_the_capture():
    console = Console(record=True, width=200)
    render_profile_summary(load_sample("retracing"), console)
    text = console.export_text()
    assert "Eager dispatch: 2 ops per step from Python" in text
    assert "Traced during the capture: train_step 20x in 20 calls" in text
