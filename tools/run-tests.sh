#!/usr/bin/env bash
# README's test command and what CI runs: installs what is missing, then
#   1. builds with the dev preset (optimised, warnings on) and runs every test with ctest;
#   2. fuzzes each libFuzzer harness of tests/fuzz for a minute (tools/run-fuzz.sh: clang 14,
#      ASan + UBSan), after replaying every saved reproducer.
# Each stage stops the script on its first failure. tools/run-tests.sh --quick runs stage 1 only.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
start=$(date +%s)
cmake --workflow --preset dev
dev=$(date +%s)
if [[ "${1:-}" == "--quick" ]]; then
    echo "run-tests: dev suite in $((dev - start)) s (--quick: no fuzzing)"
    exit 0
fi
tools/run-fuzz.sh 60
end=$(date +%s)
echo "run-tests: dev suite $((dev - start)) s, fuzzing $((end - dev)) s, total $((end - start)) s"
