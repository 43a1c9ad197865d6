# 16 backends on 16 direct connections: 400 matches
bash "$(dirname "$0")/loop.sh" direct
