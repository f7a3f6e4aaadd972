#!/usr/bin/env bash
# Builds each fuzz target into the TimelineCore module with libFuzzer and AddressSanitizer,
# then runs it for SECONDS (default 60) on a fresh corpus seeded from the example logs.
# Usage: Tests/Fuzz/run.sh [SECONDS] [TARGET...]
#   targets: FuzzLogReader FuzzDateValue (built into TimelineCore) and FuzzCheckpoint (built into
#   TimelineProjections, over TimelineCore built as a static library)
set -euo pipefail
seconds="${1:-60}"
shift || true
root="$(cd "$(dirname "$0")/../.." && pwd)"
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then targets=(FuzzLogReader FuzzDateValue FuzzCheckpoint); fi
work="$(mktemp -d "${TMPDIR:-/tmp}/timeline-fuzz.XXXXXX")"
echo "fuzz work directory: $work"
mapfile -t sources < <(find "$root/Sources/TimelineCore" -name '*.swift' | sort)
mapfile -t projections < <(find "$root/Projections" -name '*.swift' | sort)
flags=(-sanitize=fuzzer,address -parse-as-library -O -g -use-ld=lld -package-name timeline)
# TimelineCore's imports: the C library behind SystemShim (a Swift module, built first), and
# the header-only C modules (memmem, the CRC-32C instruction).
shim="$work/shim"
mkdir -p "$shim"
swiftc "${flags[@]}" -module-name SystemShim -emit-module -emit-module-path "$shim/SystemShim.swiftmodule" \
    -emit-library -static "$root"/Sources/SystemShim/*.swift -o "$shim/libSystemShim.a"
flags+=(-I "$shim" -L "$shim" -lSystemShim -I "$root/Sources/CStringSearch" -I "$root/Sources/CChecksum")
status=0
for target in "${targets[@]}"; do
    binary="$work/$target"
    if [ "$target" = FuzzCheckpoint ]; then
        core="$work/core"
        mkdir -p "$core"
        swiftc "${flags[@]}" -module-name TimelineCore -emit-module -emit-module-path "$core/TimelineCore.swiftmodule" \
            -emit-library -static -enable-testing "${sources[@]}" -o "$core/libTimelineCore.a"
        swiftc "${flags[@]}" -module-name TimelineProjections -I "$core" -L "$core" -lTimelineCore \
            "${projections[@]}" "$root/Tests/Fuzz/$target.swift" -o "$binary"
    else
        swiftc "${flags[@]}" -module-name TimelineCore "${sources[@]}" "$root/Tests/Fuzz/$target.swift" -o "$binary"
    fi
    corpus="$work/$target-corpus"
    artifacts="$work/$target-artifacts/"
    mkdir -p "$corpus" "$artifacts"
    case "$target" in
        FuzzLogReader)
            n=0
            for log in "$root"/Examples/logs/*.jsonl; do
                [ -f "$log" ] || continue
                cp "$log" "$corpus/log-$n"; n=$((n + 1))
                head -n 1 "$log" > "$corpus/line-$n"; n=$((n + 1))
            done ;;
        FuzzCheckpoint)
            printf '\001\000\000\000' > "$corpus/version"
            # A real checkpoint body (without its magic and checksum), if the stress helper is built.
            stress="$root/.build/debug/timeline-stress"
            if [ -x "$stress" ]; then
                "$stress" "$work/seed.jsonl" 1 0 40 > /dev/null
                size=$(wc -c < "$work/seed.jsonl.checkpoint")
                tail -c +9 "$work/seed.jsonl.checkpoint" | head -c $((size - 12)) > "$corpus/checkpoint"
            fi ;;
        FuzzDateValue)
            n=0
            for date in 1990 1990-04 1990-04-12 2008-09-01T09:00:00+02:00 2026-11-29T12:00:00Z -0044-03-15; do
                printf '%s' "$date" > "$corpus/date-$n"; n=$((n + 1))
            done ;;
    esac
    echo "== $target for ${seconds}s"
    if ! "$binary" "$corpus" -max_total_time="$seconds" -artifact_prefix="$artifacts" -print_final_stats=1 \
        -max_len=4096 -timeout=10 -rss_limit_mb=4096; then
        echo "$target: crash; input kept in $artifacts"
        status=1
    fi
done
exit $status
