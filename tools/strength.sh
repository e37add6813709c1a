#!/bin/sh
# The strength table of docs/strength.md: one `amazons match` per pair at equal time per move,
# 100 games each (colours alternate; pairs of games share a random opening), records and JSON
# summaries into OUT_DIR.
#
#   tools/strength.sh [BUILD_DIR] [OUT_DIR] [MS]     (defaults: build/release, strength, 20)
set -eu
build=${1:-build/release}
out=${2:-strength}
ms=${3:-20}
amazons=$build/bin/amazons
mkdir -p "$out"
uct="uct:iters=0,ms=$ms"
invader="invader:iters=0,ms=$ms,schedule=0"
ab="ab:depth=64,ms=$ms"
pair() {
  name=$1; shift
  echo "== $name"
  "$amazons" match "$1" "$2" --games 100 --threads 2 --seed 1 \
    --json "$out/$name.json" --records "$out/$name.jsonl" | tee "$out/$name.txt"
}
pair uct-random "$uct" random
pair invader-random "$invader" random
pair ab-random "$ab" random
pair greedy-random greedy random
pair invader-ab "$invader" "$ab"
pair invader-uct "$invader" "$uct"
pair ab-uct "$ab" "$uct"
pair invader-greedy "$invader" greedy
pair ab-greedy "$ab" greedy
pair uct-greedy "$uct" greedy
