#!/usr/bin/env bash
# Builds the libFuzzer harnesses of tests/fuzz with the fuzz preset (clang 14, ASan + UBSan) and
# runs each of them for SECONDS (default 60), one after the other:
#   tools/run-fuzz.sh [SECONDS] [TARGET...]     targets: json safetensors case model_folder
#                                                         tokenizers import lesson (default: all)
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
all_targets=(json safetensors case model_folder tokenizers import lesson)
targets=("$@")
((${#targets[@]})) || targets=("${all_targets[@]}")
for t in "${targets[@]}"; do
    if [[ ! " ${all_targets[*]} " =~ " $t " ]]; then
        echo "run-fuzz: unknown target '$t'; expected one of ${all_targets[*]}" >&2
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
failed=()
summary=()
for t in "${targets[@]}"; do
    binary="$build/tests/fuzz/fuzz_$t"
    corpus="$build/corpus/$t"
    findings="$build/findings/$t"
    log="$build/logs/$t.log"
    mkdir -p "$corpus" "$findings"
    options=(-rss_limit_mb=2048 -timeout=10 -artifact_prefix="$findings/")

    regressions=()
    if [[ -d tests/fuzz/regressions/$t ]]; then
        while IFS= read -r -d '' f; do regressions+=("$f"); done \
            < <(find "tests/fuzz/regressions/$t" -type f -print0 | sort -z)
    fi
    if ((${#regressions[@]})) &&
        ! "$binary" "${options[@]}" "${regressions[@]}" >"$build/logs/$t.regressions.log" 2>&1; then
        echo "run-fuzz: $t: a regression input fails again; see $build/logs/$t.regressions.log" >&2
        failed+=("$t")
        summary+=("$(printf '%-13s %12s %9s  %s' "$t" "-" "-" "regression fails")")
        continue
    fi

    echo "run-fuzz: $t for ${seconds} s ..."
    status=0
    "$binary" "${options[@]}" -max_total_time="$seconds" -print_final_stats=1 \
        -dict="tests/fuzz/dict/$t.dict" "$corpus" "$build/seeds/$t" >"$log" 2>&1 || status=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    if ((status != 0)); then
        failed+=("$t")
        artifact=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -1)
        summary+=("$(printf '%-13s %12s %9s  %s' "$t" "${runs:-?}" "${rate:-?}" \
            "FINDING (exit $status) ${artifact:-see $log}")")
        echo "run-fuzz: $t found something: ${artifact:-see $log}; its report is in $log" >&2
    else
        summary+=("$(printf '%-13s %12s %9s  %s' "$t" "${runs:-?}" "${rate:-?}" \
            "ok, corpus $(find "$corpus" -type f | wc -l) files")")
    fi
done
end=$(date +%s)

echo
printf '%-13s %12s %9s  %s\n' target executions "exec/s" result
printf '%s\n' "${summary[@]}"
echo "run-fuzz: build $((built - start)) s, fuzzing $((end - built)) s, total $((end - start)) s"
if ((${#failed[@]})); then
    echo "run-fuzz: findings in ${failed[*]}: save each reproducer under tests/fuzz/regressions/<target>/" >&2
    exit 1
fi
