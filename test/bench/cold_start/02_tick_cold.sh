# its first 50 ticks (10,000 rosters)
set -euo pipefail
bash "$(dirname "${BASH_SOURCE[0]}")/case.sh" tick cold
