#!/bin/sh
# `npm run bench:<name> [-- options]`: the call is checked before anything is built (the build
# replaces dist/, which a running server may be using), then the code is built and each bench runs
# from dist/ in turn. Only the soak and the events bench take options (test/bench/soak.options.ts
# and events.options.ts read their values); the others take none.
#
#   sh test/bench/bench.sh <script> <bench>[,<bench>...] [the caller's arguments]
set -u
script=$1
benches=$2
shift 2

# The benches that take options: each takes a value; they are checked here and kept for the bench.
case "$script" in
  bench:soak) takes="--minutes --share"; usage="usage: npm run bench:soak [-- --minutes <n>] [--share <fraction>]   (-- --help after the build lists what they do)" ;;
  bench:events) takes="--sizes --batch-events"; usage="usage: npm run bench:events [-- --sizes <list>] [--batch-events <n>]   (e.g. --sizes 100k for a smoke run; -- --help after the build lists what they do)" ;;
  *) takes="" ;;
esac

if [ -n "$takes" ]; then
  wants_help=0
  # The options go round once, behind a marker: what is checked is put back for the bench.
  set -- "$@" --end
  while [ "$1" != --end ]; do
    name=${1%%=*}
    case " $takes " in *" $name "*) known=1 ;; *) known=0 ;; esac
    if [ "$1" = -h ] || [ "$1" = --help ]; then
      wants_help=1; shift
    elif [ "$known" = 1 ] && [ "$name" = "$1" ]; then
      [ "$2" != --end ] || { echo "error: option '$1' argument missing" >&2; echo "$usage" >&2; exit 2; }
      set -- "$@" "$1" "$2"; shift 2
    elif [ "$known" = 1 ]; then
      set -- "$@" "$1"; shift
    else
      echo "error: unknown option '$1'" >&2; echo "$usage" >&2; exit 2
    fi
  done
  shift
  bench_js="dist/test/bench/$benches.bench.js"
  if [ "$wants_help" = 1 ] && [ ! -f "$bench_js" ]; then echo "$usage"; exit 0; fi
  if [ "$wants_help" = 1 ]; then exec node "$bench_js" --help; fi
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
