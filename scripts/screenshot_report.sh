#!/usr/bin/env bash
# Render an HTML report and take a headless-browser screenshot of it, to check by eye that the page opens and
# draws its charts (nothing in the report needs a network or JavaScript, so a plain file:// load must suffice).
#
# Usage: scripts/screenshot_report.sh [REPORT.html] [OUT.png]
#   REPORT.html  an existing report; default: the report of samples/input_bound with its committed capture
#                (samples/profiles/input_bound), so the charts have real data
#   OUT.png      default: report.png in the current directory
# Needs chromium (Debian: apt-get install -y chromium); CHROMIUM=/path/to/browser overrides the binary.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

report="${1:-}"
out="${2:-report.png}"
if [[ -z "$report" ]]; then
    report="$work/report.html"
    # --exit-zero: findings are what the sample is for, not a failure of this script.
    advisor analyze "$root/samples/input_bound" "$root/samples/profiles/input_bound" --format html \
        --output "$report" --exit-zero
fi

browser="${CHROMIUM:-$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)}"
if [[ -z "$browser" ]]; then
    echo "screenshot_report.sh: no chromium found; install it (apt-get install -y chromium) or set CHROMIUM" >&2
    exit 2
fi

# A throwaway profile and no background traffic: the screenshot must not depend on, or touch, anything outside.
"$browser" --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
    --disable-component-update --disable-sync --hide-scrollbars --user-data-dir="$work/profile" \
    --window-size=1200,1600 --screenshot="$(realpath -m "$out")" "file://$(realpath "$report")" 2>"$work/browser.log" \
    || { cat "$work/browser.log" >&2; exit 1; }
echo "screenshot: $out"
