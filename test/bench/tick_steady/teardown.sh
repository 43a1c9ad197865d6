#!/usr/bin/env bash
# The tick log's figures (report.sh) go to test/bench/out/tick_steady.txt.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bash "$here/report.sh" >"$here/../out/tick_steady.txt"
