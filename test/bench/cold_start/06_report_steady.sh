# 200 mm.report_result calls, steady state
set -euo pipefail
bash "$(dirname "${BASH_SOURCE[0]}")/case.sh" report steady
