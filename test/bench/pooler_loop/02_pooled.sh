# 16 backends through pgbouncer (transaction mode, 4 server connections): 400 matches
bash "$(dirname "$0")/loop.sh" pooled
