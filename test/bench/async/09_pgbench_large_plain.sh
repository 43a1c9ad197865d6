# the same pgbench with the put written by hand: delete the player's entry, insert the new one, nothing counted (tps in out/async_large.txt)
bash "$(dirname "${BASH_SOURCE[0]}")/large.sh" plain_put
