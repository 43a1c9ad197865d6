# 10,000 mm.enqueue calls on that queue, emptied, after ANALYZE (the steady state)
set -euo pipefail
bash "$(dirname "${BASH_SOURCE[0]}")/case.sh" enqueue steady
