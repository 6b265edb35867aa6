#!/usr/bin/env bash
# README's test command and what CI runs: installs what is missing, then
#   1. builds with the dev preset (optimised, warnings on) and runs every test with ctest;
#   2. builds the suite again with the asan preset (clang 14, AddressSanitizer +
#      UndefinedBehaviorSanitizer + LeakSanitizer) and runs it (the GUI tests and the stress test
#      too; see the preset for the two long decoding runs it leaves to stage 1);
#   3. fuzzes each libFuzzer harness of tests/fuzz for 30 s (tools/run-fuzz.sh: clang 14,
#      ASan + UBSan), after replaying every saved reproducer; a longer hunt is
#      tools/run-fuzz.sh 600 (docs/performance.md, "Where CI's time goes").
# Each stage stops the script on its first failure. tools/run-tests.sh --quick runs stage 1 only.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
start=$(date +%s)
cmake --workflow --preset dev
dev=$(date +%s)
if [[ "${1:-}" == "--quick" ]]; then
    echo "run-tests: dev suite in $((dev - start)) s (--quick: no sanitizers, no fuzzing)"
    exit 0
fi
cmake --workflow --preset asan
asan=$(date +%s)
tools/run-fuzz.sh 30
end=$(date +%s)
echo "run-tests: dev suite $((dev - start)) s, sanitizers $((asan - dev)) s," \
    "fuzzing $((end - asan)) s, total $((end - start)) s"
