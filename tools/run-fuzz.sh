#!/usr/bin/env bash
# Builds the libFuzzer harnesses of tests/fuzz with the fuzz preset (clang 14, ASan + UBSan) and
# runs each of them for SECONDS (default 60), as many at a time as there are cores:
#   tools/run-fuzz.sh [SECONDS] [TARGET...]     targets: json safetensors case model_folder
#                                                         tokenizers import lesson pictures
#                                                         (default: all)
# Each run first replays tests/fuzz/regressions/<target>/, then fuzzes from the seeds the build
# wrote (build/fuzz/seeds/<target>, from tests/data) and the corpus kept from earlier runs
# (build/fuzz/corpus/<target>). A finding -- a crash, a sanitizer report, an undocumented
# exception, a broken promise (fuzz::Finding), a hang over 10 s, more than 2 GB of memory -- is
# written to build/fuzz/findings/<target>/ and makes the script exit 1; logs are in
# build/fuzz/logs/. Needs clang-14, libclang-rt-14-dev and libomp-14-dev.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-60}"
shift || true
if ! [[ "$seconds" =~ ^[0-9]+$ ]] || ((seconds < 1)); then
    echo "run-fuzz: SECONDS must be a positive whole number, not '$seconds'" >&2
    exit 2
fi
all_targets=(json safetensors case model_folder tokenizers import lesson pictures)
targets=("$@")
((${#targets[@]})) || targets=("${all_targets[@]}")
for t in "${targets[@]}"; do
    if [[ ! " ${all_targets[*]} " =~ " $t " ]]; then
        echo "run-fuzz: unknown target '$t'; expected one of ${all_targets[*]}" >&2
        exit 2
    fi
    if [[ ! -s tests/fuzz/dict/$t.dict ]]; then
        echo "run-fuzz: target '$t' has no dictionary tests/fuzz/dict/$t.dict" >&2
        exit 2
    fi
done
if ! command -v clang++-14 >/dev/null; then
    echo "run-fuzz: clang++-14 is missing; install clang-14 libclang-rt-14-dev libomp-14-dev" >&2
    exit 2
fi

start=$(date +%s)
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz
built=$(date +%s)

build=build/fuzz
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
mkdir -p "$build/logs"
rm -f "$build"/logs/*.summary

# One harness: its saved regressions, then SECONDS of fuzzing. Writes its line of the summary to
# $build/logs/<target>.summary; returns non-zero on a finding.
fuzz_one() {
    local t=$1
    local binary="$build/tests/fuzz/fuzz_$t" corpus="$build/corpus/$t"
    local findings="$build/findings/$t" log="$build/logs/$t.log"
    local line="$build/logs/$t.summary"
    mkdir -p "$corpus" "$findings"
    local options=(-rss_limit_mb=2048 -timeout=10 -artifact_prefix="$findings/")

    local regressions=() f
    if [[ -d tests/fuzz/regressions/$t ]]; then
        while IFS= read -r -d '' f; do regressions+=("$f"); done \
            < <(find "tests/fuzz/regressions/$t" -type f -print0 | sort -z)
    fi
    if ((${#regressions[@]})) &&
        ! "$binary" "${options[@]}" "${regressions[@]}" >"$build/logs/$t.regressions.log" 2>&1; then
        echo "run-fuzz: $t: a regression input fails again; see $build/logs/$t.regressions.log" >&2
        printf '%-13s %12s %9s  %s\n' "$t" "-" "-" "regression fails" >"$line"
        return 1
    fi

    echo "run-fuzz: $t for ${seconds} s ..."
    local status=0 runs rate artifact
    "$binary" "${options[@]}" -max_total_time="$seconds" -print_final_stats=1 \
        -dict="tests/fuzz/dict/$t.dict" "$corpus" "$build/seeds/$t" >"$log" 2>&1 || status=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    if ((status != 0)); then
        artifact=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -1)
        printf '%-13s %12s %9s  %s\n' "$t" "${runs:-?}" "${rate:-?}" \
            "FINDING (exit $status) ${artifact:-see $log}" >"$line"
        echo "run-fuzz: $t found something: ${artifact:-see $log}; its report is in $log" >&2
        return 1
    fi
    printf '%-13s %12s %9s  %s\n' "$t" "${runs:-?}" "${rate:-?}" \
        "ok, corpus $(find "$corpus" -type f | wc -l) files" >"$line"
}

# As many harnesses at a time as there are cores: each fuzzer is one process on one core, and
# one after another they left the other core idle for CI's whole fuzzing stage.
slots=$(nproc)
declare -A running=()   # pid -> target
failed=()
collect_one() {
    local pid status=0
    wait -n -p pid "${!running[@]}" || status=$?
    ((status == 0)) || failed+=("${running[$pid]}")
    unset "running[$pid]"
}
for t in "${targets[@]}"; do
    while ((${#running[@]} >= slots)); do collect_one; done
    fuzz_one "$t" &
    running[$!]=$t
done
while ((${#running[@]})); do collect_one; done
end=$(date +%s)

echo
printf '%-13s %12s %9s  %s\n' target executions "exec/s" result
for t in "${targets[@]}"; do cat "$build/logs/$t.summary"; done
echo "run-fuzz: build $((built - start)) s, fuzzing $((end - built)) s, total $((end - start)) s"
if ((${#failed[@]})); then
    echo "run-fuzz: findings in ${failed[*]}: save each reproducer under tests/fuzz/regressions/<target>/" >&2
    exit 1
fi
