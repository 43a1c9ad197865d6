# mm.report_result of a 5v5 match, OpenSkill and ladder points (pgbench, 2 clients)
set -euo pipefail
bash "$(dirname "${BASH_SOURCE[0]}")/pgbench_case.sh" report
