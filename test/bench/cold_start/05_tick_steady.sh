# 50 ticks of it (10,000 rosters), steady state
set -euo pipefail
bash "$(dirname "${BASH_SOURCE[0]}")/case.sh" tick steady
