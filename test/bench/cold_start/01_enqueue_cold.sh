# the first 10,000 mm.enqueue calls of a new database (tables without statistics)
set -euo pipefail
bash "$(dirname "${BASH_SOURCE[0]}")/case.sh" enqueue cold
