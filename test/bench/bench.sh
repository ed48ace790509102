#!/bin/sh
# `npm run bench:<name> [-- options]`: the call is checked before anything is built (the build
# replaces dist/, which a running server may be using), then the code is built and each bench runs
# from dist/ in turn. Only the soak takes options (test/bench/soak.options.ts reads their values).
#
#   sh test/bench/bench.sh <script> <bench>[,<bench>...] [the caller's arguments]
set -u
script=$1
benches=$2
shift 2

if [ "$script" = bench:soak ]; then
  usage="usage: npm run bench:soak [-- --minutes <n>] [--share <fraction>]   (-- --help after the build lists what they do)"
  wants_help=0
  while [ $# -gt 0 ]; do
    case "$1" in
      --minutes|--share) [ $# -ge 2 ] || { echo "error: option '$1' argument missing" >&2; echo "$usage" >&2; exit 2; }; shift 2 ;;
      --minutes=*|--share=*) shift ;;
      -h|--help) wants_help=1; shift ;;
      *) echo "error: unknown option '$1'" >&2; echo "$usage" >&2; exit 2 ;;
    esac
  done
  if [ "$wants_help" = 1 ] && [ ! -f dist/test/bench/soak.bench.js ]; then echo "$usage"; exit 0; fi
  if [ "$wants_help" = 1 ]; then exec node dist/test/bench/soak.bench.js --help; fi
else
  usage="usage: npm run $script   (builds into dist/, then runs test/bench/<name>.bench.ts for $(echo "$benches" | sed 's/,/, /g'); takes no arguments)"
  case "$*" in
    "") ;;
    -h|--help) echo "$usage"; exit 0 ;;
    *) echo "npm run $script takes no arguments: $*" >&2; echo "$usage" >&2; exit 2 ;;
  esac
fi

npm run --silent build || exit 1
for bench in $(echo "$benches" | tr ',' ' '); do
  node "dist/test/bench/$bench.bench.js" "$@" || exit 1
done
