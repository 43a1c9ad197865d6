# baseline: a bare transaction updating a 5v5 match's 10 rating rows and inserting 10 history rows (pgbench, 2 clients)
set -euo pipefail
bash "$(dirname "${BASH_SOURCE[0]}")/pgbench_case.sh" bare
