#!/usr/bin/env bash
# The kept ticks' figures (report.sh) go to test/bench/out/tick_kept.txt.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bash "$here/report.sh" >"$here/../out/tick_kept.txt"
