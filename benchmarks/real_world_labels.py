"""Keep the real-world manifest's labels in step with advisor's findings (see real_world_accuracy.py).

After a run of ``real_world_accuracy.py --findings FILE`` on new code:

- ``diff FILE``: what changed against the labels: findings with no label (in manifest-ready form, recorded misses
  now found marked), labels whose confidence changed, labels no longer reported (``-v``: each one, not only counts);
- ``sync FILE``: set each label's confidence to the one FILE reports (after the changes were reviewed);
- ``add LABELS.jsonl [--misses MISSES.jsonl]``: append hand-written labels and misses, one JSON object per line (a
  miss that is now labelled as a finding leaves the misses);
- ``missing [--mirror DIR]``: the manifest's repos with no snapshot in the mirror, one per line (what to fetch).

The manifest keeps one entry per line, so that a label's change is one line of a diff.

Run: python benchmarks/real_world_labels.py {diff,sync,add,missing} ...
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from dataclasses import astuple
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import real_world_accuracy as accuracy  # noqa: E402  (a sibling script, not a package)



def read(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def write(document: dict, path: Path) -> None:
    parts = []
    for key in ("repos", "findings", "misses"):
        lines = ",\n".join(json.dumps(entry, ensure_ascii=False) for entry in document.get(key, []))
        parts.append(f'"{key}": [\n{lines}\n]')
    path.write_text("{\n" + ",\n".join(parts) + "\n}\n", encoding="utf-8")


def key(entry: dict) -> accuracy.Place:
    """Where a label or a miss is."""
    return accuracy.Place(entry["repo"], entry["path"], entry.get("cell"), entry["line"], entry["rule"])


def diff(document: dict, findings: dict[str, list[dict]], verbose: bool) -> int:
    places = accuracy.reported_places(findings)
    labels = {key(entry): entry for entry in document["findings"]}
    misses = {key(entry): entry for entry in document["misses"]}
    changed, gone = Counter(), Counter()
    for place, label in labels.items():
        if place.repo not in findings:
            continue
        if place not in places:
            gone[(label["rule"], label["label"], label["confidence"])] += 1
            if verbose:
                print(f"no longer reported: {label['label']} {label['confidence']} {astuple(place)}: {label['reason']}")
        elif places[place]["confidence"] != label["confidence"]:
            now = places[place]["confidence"]
            changed[(label["rule"], label["label"], label["confidence"], now)] += 1
            if verbose:
                print(f"confidence {label['confidence']} -> {now}: {label['label']} {astuple(place)}: "
                      f"{label['reason']}")
    new = [(place, finding) for place, finding in places.items() if place not in labels]
    for place, finding in new:
        if place in misses:
            print(f"# a recorded miss, now reported: {misses[place]['reason']}")
        print(accuracy.manifest_line(place, finding))
    print(f"{len(new)} findings without a label")
    for title, counts in (("confidence changed", changed), ("no longer reported", gone)):
        print(f"{title}: {sum(counts.values())}")
        for what, count in sorted(counts.items()):
            print(f"  {count} {' '.join(what)}")
    return accuracy.EXIT_FAILED if new else accuracy.EXIT_OK


def sync(document: dict, findings: dict[str, list[dict]]) -> int:
    places = accuracy.reported_places(findings)
    updated = 0
    for label in document["findings"]:
        finding = places.get(key(label))
        if finding is not None and finding["confidence"] != label["confidence"]:
            label["confidence"] = finding["confidence"]
            updated += 1
    print(f"{updated} labels' confidences set to what the findings report")
    return accuracy.EXIT_OK


def add(document: dict, labels_file: Path | None, misses_file: Path | None) -> int:
    labels = {key(entry): entry for entry in document["findings"]}
    misses = {key(entry): entry for entry in document["misses"]}
    known = {repo["repo"] for repo in document["repos"]}
    added = 0
    for path, into in ((labels_file, labels), (misses_file, misses)):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines() if path else [], 1):
            if not line.strip():
                continue
            entry = {name: value for name, value in json.loads(line).items() if value is not None}
            place = key(entry)
            if place.repo not in known:
                raise accuracy.ManifestError(f"{path}:{number}: {place.repo} is not a repo of the manifest")
            if place in labels or (into is misses and place in misses):
                raise accuracy.ManifestError(f"{path}:{number}: {place.describe()} is there already")
            if into is labels:
                misses.pop(place, None)
            into[place] = entry
            added += 1
    document["findings"], document["misses"] = list(labels.values()), list(misses.values())
    print(f"{added} entries added")
    return accuracy.EXIT_OK


def missing(document: dict, mirror: Path) -> int:
    for entry in document["repos"]:
        repo = accuracy.RepoEntry(entry["repo"], entry["commit"], "", ())
        if accuracy._snapshot_git_dir(mirror, repo) is None:
            print(repo.repo)
    return accuracy.EXIT_OK


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--manifest", type=Path, default=accuracy.MANIFEST)
    commands = parser.add_subparsers(dest="command", required=True)
    for name in ("diff", "sync"):
        command = commands.add_parser(name)
        command.add_argument("findings", type=Path)
        command.add_argument("-v", "--verbose", action="store_true")
    adding = commands.add_parser("add")
    adding.add_argument("labels", type=Path, nargs="?")
    adding.add_argument("--misses", type=Path)
    listing = commands.add_parser("missing")
    listing.add_argument("--mirror", type=Path, default=Path("/work/.mirror"))
    args = parser.parse_args(argv)
    try:
        document = read(args.manifest)
        if args.command == "missing":
            return missing(document, args.mirror)
        if args.command == "add":
            status = add(document, args.labels, args.misses)
        else:
            findings = accuracy.read_findings(args.findings).findings
            if args.command == "diff":
                return diff(document, findings, args.verbose)
            status = sync(document, findings)
        # Checked before it replaces the manifest: a label missing a field leaves the manifest as it was.
        written = args.manifest.with_name(args.manifest.name + ".new")
        write(document, written)
        try:
            accuracy.load_manifest(written)
        except accuracy.ManifestError:
            written.unlink()
            raise
        written.replace(args.manifest)
        return status
    except (OSError, ValueError, KeyError, accuracy.ManifestError) as exc:
        print(f"real_world_labels: {exc}", file=sys.stderr)
        return accuracy.EXIT_UNUSABLE


if __name__ == "__main__":
    sys.exit(main())
