#!/usr/bin/env bash
# TPC-H through the local stack at two task-function memory sizes and at SF 10 (docs/benchmarks.md,
# "Task memory and spilling"): SF 1 with 1,024 MB and with 256 MB task functions, then SF 10 with the
# default (2,048 MB). Each run prints per query Squall's and DuckDB's times, the peak task memory, the
# bytes spilled, and whether each answer equals DuckDB's; logs go to OUT_DIR.
#
# Usage: bench/tpch-memory.sh [SF1_DATA_DIR] [SF10_DATA_DIR] [OUT_DIR]
# Data directories are loaded on first use (SF 10 takes about 25 minutes to load on 2 cores) and reused
# afterwards. Set SKIP_SF10=1 to run only the SF 1 part.
set -euo pipefail
cd "$(dirname "$0")/.."
SF1_DIR=${1:-/tmp/squall-bench-sf1}
SF10_DIR=${2:-/tmp/squall-bench-sf10}
OUT=${3:-/tmp/squall-bench-memory}
mkdir -p "$OUT"

mvn -B -q -o test-compile dependency:build-classpath -pl cli -am \
  -Dmdep.outputFile="$OUT/cp.txt" -Dmdep.includeScope=test
CP="cli/target/test-classes:cli/target/classes:$(cat "$OUT/cp.txt")"
JAVA_OPTS=(--add-opens=java.base/java.nio=ALL-UNNAMED -Xmx12g
  -Daws.requestChecksumCalculation=when_required -Daws.responseChecksumValidation=when_required)

run() { # memoryMb scaleFactor dataDir log
  echo "== TPC-H SF $2, task functions of $1 MB ($4)"
  java "${JAVA_OPTS[@]}" -Dsquall.bench.taskMemoryMb="$1" -cp "$CP" \
    dev.squall.cli.bench.TpchBenchmark "$2" 0 "$3" | tee "$OUT/$4"
}

run 1024 1 "$SF1_DIR" sf1-1024mb.log
run 256 1 "$SF1_DIR" sf1-256mb.log
if [[ "${SKIP_SF10:-0}" != 1 ]]; then
  run 2048 10 "$SF10_DIR" sf10-2048mb.log
fi
