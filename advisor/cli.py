"""The ``advisor`` command line. Exit codes: 0 no findings, 1 findings, 2 usage or input error."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import click
from rich.console import Console

from . import __version__
from .catalogue import all_rules, rule_by_code
from .config import Settings, load_settings
from .errors import InputError
from .measure import FIGURE_NAMES, INCONCLUSIVE, StoppingRule
from .printable import one_line

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2

FORMATS = ("text", "json", "sarif", "github", "markdown", "html")
# Click 8.2+ raises this for a bare group; older versions print the help themselves.
NO_ARGS_IS_HELP = getattr(click.exceptions, "NoArgsIsHelpError", ())


def _settings(start: Path, select: str | None, ignore: str | None, show_all: bool = False,
              min_confidence: str | None = None) -> Settings:
    """[tool.advisor] of the nearest pyproject.toml from ``start``, overridden by the command-line options."""
    return load_settings(start, [r.code for r in all_rules()], select=select, ignore=ignore, show_all=show_all,
                         min_confidence=min_confidence)


def _save_analysis(report, settings: Settings, logdir: Path | None, run: str | None, options: dict):
    """Keep the analysis for `advisor apply` (and the verifications of unchanged findings); a repo we cannot
    write to only loses that. Returns the saved analysis, or None."""
    from .state import save_analysis

    try:
        return save_analysis(report, settings.state_file, logdir, run, options)
    except OSError as exc:
        reason = f"{exc.filename}: {exc.strerror}" if exc.filename and exc.strerror else str(exc)
    except InputError as exc:  # the state folder leads out of the repo
        reason = str(exc)
    click.echo(f"advisor: warning: analysis not saved for `advisor apply`: {one_line(reason)}", err=True)
    return None


def _exit_after_fix(changed: bool, exit_zero: bool, emit) -> None:
    """Run ``emit`` (which exits 1 on findings, else 0), failing the run also when --fix changed files: the
    pre-commit fix hook's contract."""
    try:
        emit()
    except SystemExit as done:
        sys.exit(EXIT_FINDINGS if changed and not exit_zero else done.code)


def _emit(report, output_format: str, exit_zero: bool, output: Path | None = None) -> None:
    if output_format == "text" and output is None:
        from .report.text import render_report

        render_report(report, _console())  # straight to the terminal: colour when it is one
    else:
        from .report.formats import render, write_report

        rendered = render(report, output_format)
        if output is None:
            click.echo(rendered, nl=False)
        else:
            write_report(output, rendered)
    sys.exit(EXIT_CLEAN if exit_zero or not report.findings else EXIT_FINDINGS)


def _console() -> Console:
    # Logs and pipes get whole lines: wrapping would split file:line references and diffs.
    return Console(highlight=False, soft_wrap=True, emoji=False)  # `train.py:100:` is no emoji code


def _status(message: str):
    """A spinner on stderr while long work runs, only when a person is watching."""
    console = Console(stderr=True, emoji=False)
    if console.is_terminal:
        return console.status(message)
    from contextlib import nullcontext

    return nullcontext()


min_confidence_option = click.option(
    "--min-confidence", type=click.Choice(["confirmed", "likely", "possible"]),
    help="Report nothing less sure than this (default: likely, or min-confidence in [tool.advisor]).")
select_option = click.option("--select", help="Rule codes or prefixes to run, comma-separated (default ALL).")
ignore_option = click.option("--ignore", help="Rule codes or prefixes to skip, comma-separated.")
format_option = click.option("--format", "output_format", type=click.Choice(FORMATS), default="text",
                             show_default=True)
exit_zero_option = click.option("--exit-zero", is_flag=True, help="Exit 0 even when there are findings.")
fix_option = click.option("--fix", is_flag=True,
                          help="Apply the safe fixes, then report what remains (exit 1 when files changed).")
output_option = click.option("--output", "-o", type=click.Path(dir_okay=False, path_type=Path),
                             help="Write the report to this file instead of stdout.")


no_cache_option = click.option("--no-cache", is_flag=True,
                               help="Analyze again even when the same files were analyzed before.")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="advisor")
def cli() -> None:
    """Find what slows TensorFlow/Keras training, prove it with the profile, and patch the line."""


@cli.command()
@click.argument("repo", type=click.Path(path_type=Path))
@click.argument("logdir", required=False, type=click.Path(path_type=Path))
@click.option("--run", "run_name", help="Profile run to read (default: the newest).")
@click.option("--show-all", is_flag=True, help="Also show what is hidden by default: findings the profile "
              "contradicts, on code no training run reaches, or less sure than min-confidence.")
@min_confidence_option
@select_option
@ignore_option
@format_option
@output_option
@exit_zero_option
@fix_option
@no_cache_option
def analyze(repo: Path, logdir: Path | None, run_name: str | None, show_all: bool, min_confidence: str | None,
            select: str | None, ignore: str | None, fix: bool, no_cache: bool, output_format: str, output: Path | None,
            exit_zero: bool) -> None:
    """Analyze REPO's source, gated by the profile captures in LOGDIR when given."""
    from .apply import fix_report
    from .cache import ResultCache
    from .engine import analyze as run_analysis

    settings = _settings(repo, select, ignore, show_all, min_confidence)
    cache = None if no_cache else ResultCache("analyze", settings)
    with _status("Analyzing source" + (" and profile" if logdir else "")):
        report = run_analysis(repo, logdir, settings, run=run_name, cache=cache)
    changed = False
    if fix:
        report, changed = fix_report(report, lambda: run_analysis(repo, logdir, settings, run=run_name, cache=cache))
    saved = _save_analysis(report, settings, logdir, run_name,
                           {"select": select, "ignore": ignore, "show_all": show_all,
                            "min_confidence": min_confidence})
    if saved is not None:  # measurements of earlier `advisor verify` runs on these same findings
        report.verifications = {f.id: v for f in report.findings if (v := saved.verification_of(f.id))}
    _exit_after_fix(changed, exit_zero, lambda: _emit(report, output_format, exit_zero, output))


@cli.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
@min_confidence_option
@select_option
@ignore_option
@format_option
@output_option
@exit_zero_option
@fix_option
@no_cache_option
def check(files: tuple[Path, ...], min_confidence: str | None, select: str | None, ignore: str | None, fix: bool,
          no_cache: bool, output_format: str, output: Path | None, exit_zero: bool) -> None:
    """Static rules on FILES (for pre-commit hooks and CI)."""
    from .apply import fix_report
    from .cache import ResultCache
    from .engine import check as run_check

    settings = _settings(Path.cwd(), select, ignore, min_confidence=min_confidence)
    cache = None if no_cache else ResultCache("check", settings)
    report = run_check(list(files), settings, cache)
    changed = False
    if fix:
        report, changed = fix_report(report, lambda: run_check(list(files), settings, cache))
    _exit_after_fix(changed, exit_zero, lambda: _emit(report, output_format, exit_zero, output))


@cli.command()
@click.argument("ids", nargs=-1)
@click.option("--all", "apply_all", is_flag=True, help="Apply every safe fix of the saved analysis.")
@click.option("--unsafe-fixes", is_flag=True, help="Also apply fixes that may change behaviour (each says why).")
@click.option("--diff", "diff_only", is_flag=True, help="Print the combined diff; change nothing.")
@click.option("--dry-run", is_flag=True, help="List the fixes that would be applied; change nothing.")
@click.option("--interactive", "-i", is_flag=True, help="Show each fix and ask before applying it.")
@click.option("--reanalyze", is_flag=True, help="Analyze again first (same profile and options).")
@click.option("--verified", is_flag=True,
              help="Only fixes that `advisor verify` measured faster on their own, with matching losses.")
@click.option("--repo", type=click.Path(file_okay=False, path_type=Path), default=Path("."), show_default=True,
              help="The analysed repository.")
def apply(ids: tuple[str, ...], apply_all: bool, unsafe_fixes: bool, diff_only: bool, dry_run: bool,
          interactive: bool, reanalyze: bool, verified: bool, repo: Path) -> None:
    """Apply fixes IDS (or --all) from the last `advisor analyze` of the repo (.advisor/last.json)."""
    from .apply import run_apply
    from .verify import verified_fixes

    if diff_only and dry_run:
        raise click.UsageError("--diff and --dry-run exclude each other")
    mode = "diff" if diff_only else "dry-run" if dry_run else "write"
    sys.exit(run_apply(repo, list(ids), apply_all=apply_all, unsafe_fixes=unsafe_fixes, mode=mode,
                       interactive=interactive, reanalyze=reanalyze, verified=verified_fixes if verified else None))


@cli.command()
@click.argument("code", required=False)
@click.option("--format", "output_format", type=click.Choice(("text", "json", "markdown")), default="text",
              show_default=True)
def rules(code: str | None, output_format: str) -> None:
    """List the rules, or explain rule CODE with its examples (markdown: the reference docs/rules.md holds)."""
    from .report.rules_doc import render_rule, render_rule_list, render_rules_markdown, rule_json

    if code is None:
        if output_format == "json":
            click.echo(json.dumps([rule_json(r) for r in all_rules()], indent=2))
        elif output_format == "markdown":
            click.echo(render_rules_markdown(all_rules()), nl=False)
        else:
            render_rule_list(_console())
        return
    rule = rule_by_code(code)
    if rule is None:
        raise InputError(f"unknown rule {code!r} (see `advisor rules`)")
    if output_format == "json":
        click.echo(json.dumps(rule_json(rule), indent=2))
    elif output_format == "markdown":
        click.echo(render_rules_markdown([rule]), nl=False)
    else:
        render_rule(rule, _console())


@cli.command(context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
@click.option("--warmup", default=5, show_default=True, help="Steps to run before capturing.")
@click.option("--steps", default=20, show_default=True, help="Steps to capture.")
@click.option("--python-tracer", is_flag=True, help="Record Python frames (callbacks show as file:line).")
@click.option("--logdir", type=click.Path(path_type=Path), default=Path("advisor-profile"), show_default=True)
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
def profile(warmup: int, steps: int, python_tracer: bool, logdir: Path, command: tuple[str, ...]) -> None:
    """Capture a profile of an unmodified script: `advisor profile -- python train.py ARGS`."""
    from .profile.capture import capture

    run_dir = capture(list(command), logdir, warmup=warmup, steps=steps, python_tracer=python_tracer)
    click.echo(f"Profile written to {run_dir}")
    click.echo(f"Next: advisor analyze . {logdir}")


@cli.command(context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
@click.argument("ids_and_command", nargs=-1, required=True, type=click.UNPROCESSED, metavar="[ID...] -- COMMAND...")
@click.option("--all", "verify_all", is_flag=True, help="Verify every safe fix of the saved analysis together.")
@click.option("--each", is_flag=True, help="Also measure every chosen fix alone, in the same rounds.")
@click.option("--unsafe-fixes", is_flag=True, help="Include the fixes that may change behaviour.")
@click.option("--steps", default=50, show_default=True,
              help="Steps measured per run, after the warm-up: a window of seconds, which one burst of load on the "
                   "machine does not decide.")
@click.option("--warmup", default=5, show_default=True, help="Steps run and discarded first in each run.")
@click.option("--min-rounds", default=StoppingRule.min_rounds, show_default=True,
              help="Rounds of alternating runs before the intervals are looked at.")
@click.option("--max-rounds", default=StoppingRule.max_rounds, show_default=True,
              help="Rounds after which the measurement stops, settled or not.")
@click.option("--precision", default=StoppingRule.precision, show_default=True,
              help="Stop once every interval decides a verdict and is at most this wide (high / low - 1).")
@click.option("--confidence", default=StoppingRule.confidence, show_default=True,
              help="Coverage of the speedup intervals.")
@click.option("--rtol", type=float, default=None,
              help="Largest relative per-step loss difference accepted (default: see advisor.verify.DEFAULT_RTOL).")
@click.option("--timeout", default=600.0, show_default=True,
              help="Seconds one run may take before it counts as failed.")
@click.option("--repo", type=click.Path(file_okay=False, path_type=Path),
              help="The analysed repository (default: the nearest folder above the script with a saved analysis).")
@click.option("--format", "output_format", type=click.Choice(("text", "json")), default="text", show_default=True)
def verify(ids_and_command: tuple[str, ...], verify_all: bool, each: bool, unsafe_fixes: bool, steps: int,
           warmup: int, min_rounds: int, max_rounds: int, precision: float, confidence: float, rtol: float | None,
           timeout: float, repo: Path | None, output_format: str) -> None:
    """Measure fixes IDS (or --all) of the saved analysis on COMMAND (`-- python train.py ARGS`): the original and
    the patched programs run in alternating rounds, in temporary copies, never in your tree, until each speedup's
    interval decides a verdict (faster, no gain, slower) or --max-rounds is reached (inconclusive). Exit 1 when a
    patched program fails or its losses diverge."""
    from .report.text import verification_line
    from .verify import DEFAULT_RTOL, default_repo, run_verify

    # What follows the ids is the command, which starts with its interpreter. Click drops the "--" separator
    # when no id comes before it, and keeps it after one.
    split = next((i for i, arg in enumerate(ids_and_command) if "python" in Path(arg).name), None)
    if split is None:
        raise click.UsageError("give the training command after --, e.g. `advisor verify --all -- python train.py`")
    ids, command = [a for a in ids_and_command[:split] if a != "--"], list(ids_and_command[split:])
    if not (ids or verify_all):
        raise click.UsageError("name the fixes to verify by id (shown by `advisor analyze`), or pass --all")
    try:
        rule = StoppingRule(min_rounds, max_rounds, precision, confidence)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None

    def progress(run) -> None:
        cpu = "" if run.cpu_ms_per_step is None else f", {run.cpu_ms_per_step:.1f} ms CPU/step"
        click.echo(f"round {run.round + 1} {run.variant}: {run.median_ms:.1f} ms/step{cpu} (median of "
                   f"{len(run.step_ms)} steps; load {run.load_avg_1m})", err=True)

    result = run_verify(repo or default_repo(command), ids, command, unsafe_fixes=unsafe_fixes, each=each,
                        steps=steps, warmup=warmup, rule=rule, rtol=DEFAULT_RTOL if rtol is None else rtol,
                        timeout_s=timeout, progress=progress)
    records = result.records()
    if output_format == "json":
        click.echo(json.dumps({"verifications": records, "rounds": result.rounds, "held_back": result.held_back,
                               "machine": result.machine}, indent=2))
        sys.exit(EXIT_CLEAN if result.ok else EXIT_FINDINGS)
    for held_back in result.held_back:
        click.echo(f"not verified (unsafe; pass --unsafe-fixes): {held_back}")
    for patch_set, record in zip(result.sets, records):
        alone = len(result.sets) > 1 and len(patch_set.patches) == 1
        click.echo(("alone: " if alone else "together: " if len(patch_set.patches) > 1 else "")
                   + "; ".join(f"{f.code} [{f.id}] {f.location.display}" for f in patch_set.patches))
        click.echo(f"    {verification_line(record)}")
        click.echo(f"    verdict on {FIGURE_NAMES[patch_set.figure]}: {patch_set.figure_reason}")
        for skipped in patch_set.skipped:
            click.echo(f"    not applied: {skipped}")
        if patch_set.unsafe and patch_set.error is None:
            click.echo(f"    unsafe fixes in this set ({', '.join(f.id for f in patch_set.unsafe)}): they may change "
                       f"what the model learns; the loss comparison is the check that they did not")
        if patch_set.error:
            click.echo(f"    the patched program failed:\n{patch_set.error}")
    m = result.machine
    click.echo(f"machine: {m['cores']} cores, 1-minute load average {m['load_avg_1m_start']} at the start, "
               f"{m['load_avg_1m_end']} at the end; {result.rounds} rounds of alternating runs")
    if any(s.verdict == INCONCLUSIVE for s in result.sets):
        busy = max(m["load_avg_1m_start"], m["load_avg_1m_end"]) > m["cores"]
        click.echo("inconclusive: the rounds disagree too much to tell; " + (
            "other jobs kept more than every core busy: measure again when the machine is quieter, or allow more "
            "rounds (--max-rounds)" if busy else "allow more rounds (--max-rounds) or measure more steps (--steps)"))
    sys.exit(EXIT_CLEAN if result.ok else EXIT_FINDINGS)


def _error(message: str) -> None:
    """One line on stderr, whatever the message holds (paths and output from the user's files included), then
    exit 2."""
    click.echo(f"advisor: {one_line(message)}", err=True)
    sys.exit(EXIT_ERROR)


def main() -> None:
    try:
        cli.main(standalone_mode=False)
    except click.exceptions.Abort as exc:  # click's Ctrl-C (and end of input at a prompt)
        _error("interrupted" if isinstance(exc.__context__, KeyboardInterrupt) else "aborted")
    except NO_ARGS_IS_HELP as exc:  # bare `advisor`: the help is the answer
        exc.show()
        sys.exit(EXIT_ERROR)
    except click.UsageError as exc:
        command = exc.ctx.command_path if exc.ctx is not None else "advisor"
        _error(f"error: {exc.format_message().rstrip('.')} (see `{command} --help`)")
    except click.ClickException as exc:
        _error(f"error: {exc.format_message()}")
    except InputError as exc:
        _error(f"error: {exc}")
    except KeyboardInterrupt:
        _error("interrupted")
    except OSError as exc:  # the system refused (no space, no permission, a name too long): not a bug of ours
        _error(f"error: {exc.filename}: {exc.strerror}" if exc.filename and exc.strerror
               else f"error: {exc.strerror or exc}")
    except Exception as exc:  # a bug of ours: one line for the user, the traceback on request
        if os.environ.get("ADVISOR_DEBUG"):
            raise
        _error(f"internal error: {type(exc).__name__}: {exc} (set ADVISOR_DEBUG=1 for the traceback)")
