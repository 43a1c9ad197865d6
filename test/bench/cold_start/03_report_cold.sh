# its first 200 mm.report_result calls
set -euo pipefail
bash "$(dirname "${BASH_SOURCE[0]}")/case.sh" report cold
