#!/usr/bin/env bash
# The hostile pass: builds `timeline` and tries it as a hostile user would — standard
# output on a full disk or a closed pipe, logs through pipes, FIFOs and `-`, a mistyped
# --log, control characters, torn and corrupt logs, bad dates, huge lines, invalid UTF-8 —
# and checks each answer: exit status, standard output, standard error.
#
# Usage: Tests/hostile.sh            (builds the debug tool with `swift build`)
#        TIMELINE=path/to/timeline Tests/hostile.sh   (tries that executable, no build)
#
# Prints one line per failed check and `N passed, N failed` at the end; exits 1 when a
# check failed, 2 when the tool cannot be built.
set -u

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [[ -z "${TIMELINE:-}" ]]; then
    (cd "$root" && swift build --product timeline >/dev/null) || { echo "hostile.sh: the build failed" >&2; exit 2; }
    TIMELINE="$(cd "$root" && swift build --show-bin-path)/timeline"
fi
[[ -x "$TIMELINE" ]] || { echo "hostile.sh: no executable at $TIMELINE" >&2; exit 2; }
export TIMELINE
unset TIMELINE_LOG COLUMNS NO_COLOR

work="$(mktemp -d "${TMPDIR:-/tmp}/timeline-hostile.XXXXXX")"
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 2

passed=0
failed=0
out="$work/.out"
err="$work/.err"

# check NAME STATUS OUT ERR SCRIPT
#   Runs SCRIPT with bash; STATUS is the expected exit status; OUT and ERR are extended
#   regular expressions that standard output and standard error must match (grep -E),
#   `-` for "must be empty", `*` for anything.
check() {
    local name="$1" status="$2" want_out="$3" want_err="$4" script="$5" got problems=""
    bash -c "$script" >"$out" 2>"$err"
    got=$?
    [[ "$got" == "$status" ]] || problems+=" status $got, expected $status;"
    problems+="$(matches stdout "$out" "$want_out")"
    problems+="$(matches stderr "$err" "$want_err")"
    if [[ -z "$problems" ]]; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "FAIL $name:$problems"
        sed 's/^/    stdout: /' "$out" | head -5
        sed 's/^/    stderr: /' "$err" | head -5
    fi
}

matches() {
    local stream="$1" file="$2" pattern="$3"
    case "$pattern" in
        '*') ;;
        '-') [[ -s "$file" ]] && echo " $stream not empty;" ;;
        *) grep -Eq -- "$pattern" "$file" || echo " $stream does not match /$pattern/;" ;;
    esac
}

# expect NAME CONDITION: a condition checked by the shell itself.
expect() {
    if bash -c "$2"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL $1: $2"; fi
}

t='"$TIMELINE"'

# A store made by the tool: records 1 timeline, 2 born, 3-4 berlin (one batch).
$TIMELINE create-timeline --timeline life --name Life --log store.jsonl >/dev/null
$TIMELINE add-event --timeline life --title Born --date 1990 --event born --log store.jsonl >/dev/null
$TIMELINE add-event --timeline life --title Berlin --start 2019-03 --event berlin --log store.jsonl >/dev/null
# A hand-written log far larger than a pipe's buffer.
{
    echo '{"type":"timelineCreated","data":{"timeline":"big","name":"Big"}}'
    for i in $(seq 1 4000); do
        echo "{\"type\":\"eventAdded\",\"data\":{\"event\":\"e$i\",\"timeline\":\"big\",\"title\":\"Event $i of many\",\"date\":\"2001\"}}"
    done
} >big.jsonl

# --- Output errors -----------------------------------------------------------------
for command in "export --log store.jsonl" "rows --log store.jsonl" "rows --log store.jsonl --json" \
    "replay store.jsonl" "timelines --log store.jsonl" "verify --log store.jsonl" "rebuild --log store.jsonl" \
    "--help" "--version" "add-event --timeline life --title X --date 2000 --log copy.jsonl"; do
    cp store.jsonl copy.jsonl
    check "$command > /dev/full" 1 - "cannot write to standard output: No space left on device" \
        "$t $command > /dev/full"
done
# A closed descriptor 1 may be reused by the runtime (EBADF or EINVAL): a failure either way.
check "--version with standard output closed" 1 - "cannot write to standard output: " "$t --version >&-"
cp store.jsonl closed.jsonl
check "a refused command with standard error closed" 1 - - \
    "$t add-event --timeline nope --title X --date 2000 --log closed.jsonl 2>&-"
check "... leaves the log alone" 0 - - "cmp -s closed.jsonl store.jsonl"
for command in "replay big.jsonl" "replay big.jsonl --json" "export --log big.jsonl" "rows --log big.jsonl"; do
    check "$command | head" 0 '^141$' - "$t $command | head -c 20 >/dev/null; echo \${PIPESTATUS[0]}"
    check "$command | head, SIGPIPE ignored" 0 '^141$' - \
        "trap '' PIPE; $t $command | head -c 20 >/dev/null; echo \${PIPESTATUS[0]}"
done

# --- Pipes, FIFOs and - --------------------------------------------------------------
$TIMELINE replay store.jsonl --json --now 2026-11-29 >expected.json
for source in "cat store.jsonl | $t replay -" "cat store.jsonl | $t replay /dev/stdin" "$t replay - < store.jsonl" \
    "$t replay <(cat store.jsonl)" "rm -f fifo; mkfifo fifo; { cat store.jsonl > fifo & }; $t replay fifo"; do
    check "$source" 0 '"kind":"ongoing"' - "$source --json --now 2026-11-29 | cmp - expected.json && echo '\"kind\":\"ongoing\"'"
done
check "cat big | replay - counts every row" 0 '^ *4000$' - "cat big.jsonl | $t replay - --json | wc -l"
check "export | import -" 0 "imported 4 facts from standard input" - \
    "rm -f piped.jsonl; $t export --log store.jsonl | $t import - --log piped.jsonl"
check "the imported copy lists the same rows" 0 '"event":"berlin"' - \
    "diff <($t rows --log piped.jsonl --json --now 2026-11-29) expected.json >/dev/null && cat expected.json"
check "replay - < /dev/null" 0 '^\(no rows\)$' - "$t replay - < /dev/null"
check "replay a directory" 1 - "is a directory" "$t replay ."
check "replay a missing file" 1 - "nowhere.jsonl: no such file" "$t replay nowhere.jsonl"

# --- --upto and batches --------------------------------------------------------------
check "--upto inside a batch shows the state before it" 0 '^\{"event":"born".*\}$' - \
    "$t rows --log store.jsonl --upto 3 --json"
check "--upto inside a batch: no Berlin" 0 - - "$t rows --log store.jsonl --upto 3 --json | grep berlin"'; [[ $? == 1 ]]'
check "--upto at a batch's end" 0 '"event":"berlin","timeline":"life","title":"Berlin","kind":"ongoing"' - \
    "$t rows --log store.jsonl --upto 4 --json"

check "export keeps a batch's marker" 0 '"event":"berlin".*"more":1' - "$t export --log store.jsonl"
check "export | replay --upto inside a batch: no Berlin" 0 - - \
    "$t export --log store.jsonl | $t replay - --upto 3 --json | grep berlin"'; [[ $? == 1 ]]'

# --- Missing logs ----------------------------------------------------------------------
check "add-event on a mistyped --log" 1 - "there is no log at stroe.jsonl" \
    "$t add-event --timeline life --title X --date 2000 --log stroe.jsonl"
expect "a mistyped --log creates no file" "[[ ! -e stroe.jsonl ]]"
for command in rows timelines verify export rebuild repair "remove-event --event e1"; do
    check "$command on a missing log" 1 - "there is no log at stroe.jsonl" "$t $command --log stroe.jsonl"
done
expect "no command created the mistyped log" "[[ ! -e stroe.jsonl ]]"
mkdir -p empty
check "a first rows in an empty directory" 1 - "there is no log at ./timeline.jsonl yet" "cd empty && $t rows"
check "... and says how to start one" 1 - "start one with: timeline create-timeline --name NAME" "cd empty && $t rows"
expect "rows created nothing" "[[ -z \"\$(ls -A empty)\" ]]"
ln -s nowhere.jsonl dangling.jsonl
check "a dangling symlink as --log" 1 - "there is no log at dangling.jsonl" "$t rows --log dangling.jsonl"
check "create-timeline creates the log" 0 "created timeline" - "$t create-timeline --name New --log new.jsonl"

# --- Followers: watch shows what the path names now ------------------------------------------
# follow SETUP CHANGE: starts `watch --json` on follow/l.jsonl after SETUP, runs CHANGE, and
# prints `reset:` and the titles watch shows once it has reset after its first line, and
# `warned` when watch asked for `timeline verify`.
cat >follow.sh <<'SCRIPT'
follow() {
    rm -rf follow && mkdir follow && cd follow || return 9
    eval "$1"
    "$TIMELINE" watch --log "$PWD/l.jsonl" --json >w.out 2>w.err &
    local pid=$!
    for _ in $(seq 1 600); do [[ -s w.out ]] && break; sleep 0.05; done
    eval "$2"
    for _ in $(seq 1 600); do [[ $(grep -c '"type":"reset"' w.out) -ge 2 ]] && break; sleep 0.05; done
    sleep 0.3
    kill "$pid"; wait "$pid" 2>/dev/null
    # The rows of the last reset and those inserted after it (these logs only add rows,
    # in order: a log truncated and then written may be seen empty first).
    local last
    last=$(grep -n '"type":"reset"' w.out | tail -1 | cut -d: -f1)
    [[ $last -gt 1 ]] && echo "reset: $(tail -n +"$last" w.out | grep -o '"title":"[^"]*"' | tr '\n' ' ')"
    grep -q 'timeline verify' w.err && echo warned
    cd ..
}
log_of() {  # log_of TITLE...: a hand-written log of timeline life with these events
    echo '{"type":"timelineCreated","data":{"timeline":"life","name":"Life"}}'
    for title in "$@"; do
        echo "{\"type\":\"eventAdded\",\"data\":{\"event\":\"$title\",\"timeline\":\"life\",\"title\":\"$title\",\"date\":\"2001\"}}"
    done
}
SCRIPT
check "watch: a log overwritten in place by a longer one resets to it" 0 '^reset: "title":"x" "title":"y" $' - \
    '. ./follow.sh; follow "log_of a > l.jsonl; log_of x y > o.jsonl" "cp o.jsonl l.jsonl"'
check "watch: a log cut and grown again resets to it, with no warning" 0 '^reset: "title":"c" "title":"d" $' - \
    '. ./follow.sh; follow "log_of a b > l.jsonl; log_of c d > o.jsonl" "head -1 l.jsonl > cut; cat cut > l.jsonl; sleep 0.3; tail -n +2 o.jsonl >> l.jsonl" | grep -v warned'
check "watch: a symbolic link re-pointed resets to its new target" 0 '^reset: "title":"b" "title":"c" $' - \
    '. ./follow.sh; follow "log_of a > a.jsonl; log_of b c > b.jsonl; ln -s a.jsonl l.jsonl" "ln -sfn b.jsonl l.jsonl"'
check "watch: a directory removed and made again resets to the log in it" 0 '^reset: "title":"x" $' - \
    '. ./follow.sh; follow "mkdir -p d; log_of a > d/l.jsonl; log_of x > o.jsonl; ln -s d/l.jsonl l.jsonl" "rm -r d; sleep 0.2; mkdir d; sleep 0.2; cp o.jsonl d/l.jsonl"'

# --- Passwords and command ids ----------------------------------------------------------------
for url in 'postgresql://u:S3cr3t@127.0.0.1:1/db?log=bad!name' 'postgres://u@127.0.0.1:1/db?password=S3cr3t&log=x' \
    'postgresql://u:S3%63r3t@127.0.0.1:1/db?log=bad!name' 'POSTGRESQL://u:S3cr3t@127.0.0.1:1/db?log=a&log=b'; do
    for command in "$t watch --log '$url'" "$t repair --log '$url'" "$t rows --log '$url'" "$t replay '$url'" \
        "$t create-timeline --name X --log '$url'" "TIMELINE_LOG='$url' $t verify" "$t 'TIMELINE_LOG=$url'"; do
        check "no password in: $command" 0 - - "$command 2>&1 | grep -E 'S3cr3t|S3%63r3t'; [[ \${PIPESTATUS[1]} == 1 ]]"
    done
done
check "import of the same file twice appends nothing" 0 "already imported: the command id import-[0-9a-f]{16} is in" - \
    "rm -f twice.jsonl; $t import big.jsonl --log twice.jsonl >/dev/null && $t import big.jsonl --log twice.jsonl"
check "... and the log holds it once" 0 "ok: 4001 records" - "$t verify --log twice.jsonl"
cp store.jsonl ids.jsonl
check "a command run again with its --command-id appends nothing" 0 "already done: the command id c1 is in" - \
    "$t remove-event --event born --log ids.jsonl --command-id c1 >/dev/null && $t remove-event --event born --log ids.jsonl --command-id c1"

# --- Hostile text ----------------------------------------------------------------------
cp store.jsonl text.jsonl
check "a title with an escape sequence" 0 - - \
    "$t add-event --timeline life --title \$'\\e[31mRED\\e]0;owned\\a' --date 2001 --log text.jsonl | grep -q \$'\\e'; [[ \$? == 1 ]]"
check "no raw escape in the table" 0 '\\u\{1b\}\[31mRED' - \
    "$t rows --log text.jsonl > rows.txt; grep -q \$'\\e' rows.txt && exit 9; cat rows.txt"
check "no raw escape in timelines" 0 - - "$t timelines --log text.jsonl | grep -q \$'\\e'; [[ \$? == 1 ]]"
check "--json escapes it as JSON" 0 '\\u001b\[31mRED' - "$t rows --log text.jsonl --json"
check "an escape in a refused id is escaped on stderr" 1 - '\\u\{1b\}' \
    "$t add-event --timeline \$'\\e[2J' --title X --date 2000 --log text.jsonl 2> >(tee err.txt >&2); grep -q \$'\\e' err.txt && exit 9; exit 1"
check "a C1 control (CSI) is escaped" 0 '\\u\{9b\}' - \
    "$t add-event --timeline life --title \$'\\u009b2J' --date 2002 --log text.jsonl >/dev/null; $t rows --log text.jsonl"
check "a huge title is refused" 1 - "title is 100000 characters long" \
    "$t add-event --timeline life --title \"\$(head -c 100000 /dev/zero | tr '\\0' x)\" --date 2000 --log text.jsonl"
check "an invalid UTF-8 title never crashes" 0 - - \
    "$t add-event --timeline life --title \$'bad \\xff\\xfe' --date 2003 --log text.jsonl >/dev/null; s=\$?; [[ \$s -le 2 ]]"
check "the log still verifies" 0 "ok: " - "$t verify --log text.jsonl"

# --- Bad dates -------------------------------------------------------------------------
for date in 2019-13 2019-02-30 "" yesterday 2019-1-5 "2019-04-12T25:00:00Z" 99999999999999999999; do
    check "add-event --date '$date'" 2 - "invalid value for --date: date" \
        "$t add-event --timeline life --title X --date '$date' --log store.jsonl"
done
check "--now garbage" 2 - "invalid value for --now" "$t rows --log store.jsonl --now soon"
check "--upto negative" 2 - "invalid value '-1' for --upto" "$t rows --log store.jsonl --upto -1"

# --- Torn and corrupt logs --------------------------------------------------------------
cp store.jsonl torn.jsonl
printf '{"seq":5,"type":"eventAdd' >>torn.jsonl
check "a torn tail is a warning for readers" 0 '"event":"berlin"' "incomplete last record" \
    "$t rows --log torn.jsonl --json"
# rows opens the store, which cuts the torn tail after keeping its bytes in the side file.
check "... whose bytes rows kept in the side file" 0 'eventAdd' - "cat torn.jsonl.rejected"
cp store.jsonl torn-again.jsonl
printf '{"seq":5,"type":"eventAdd' >>torn-again.jsonl
check "verify warns about a torn tail" 0 "ok: 4 records" "incomplete last record" "$t verify --log torn-again.jsonl"
cp store.jsonl garbage.jsonl
echo 'this is not a record' >>garbage.jsonl
check "appended garbage refuses the log" 1 - "line 5: .*" "$t verify --log garbage.jsonl"
check "... and points to repair" 1 - "timeline repair --log garbage.jsonl" "$t rows --log garbage.jsonl"
check "a writer refuses it too, pointing to repair" 1 - "timeline repair --log garbage.jsonl" \
    "$t add-event --timeline life --title X --date 2000 --log garbage.jsonl"
check "repair moves the garbage aside" 0 "moved 1 line to garbage.jsonl.rejected" - "$t repair --log garbage.jsonl"
check "the repaired log verifies" 0 "ok: 4 records" - "$t verify --log garbage.jsonl"
cp store.jsonl flipped.jsonl
offset=$(grep -bo 'Born' flipped.jsonl | head -1 | cut -d: -f1)
printf 'X' | dd of=flipped.jsonl bs=1 seek="$offset" conv=notrunc 2>/dev/null
check "a flipped byte is a checksum mismatch" 1 - "line 2: checksum mismatch" "$t verify --log flipped.jsonl"
check "replay of it points to repair" 1 - "timeline repair --log flipped.jsonl" "$t replay flipped.jsonl"
check "replay of it from a pipe does not" 1 - '^timeline: standard input: line 2: checksum mismatch$' \
    "cat flipped.jsonl | $t replay -"
{ head -1 store.jsonl; head -c 2000000 /dev/zero | tr '\0' ' '; echo; } >blank.jsonl
check "a huge blank line is skipped" 0 '^\(no rows\)$' - "$t replay blank.jsonl"
{ head -1 store.jsonl; printf '{"type":"timelineCreated","data":{"timeline":"x","name":"'
  head -c 2000000 /dev/zero | tr '\0' x; echo '"}}'; } >huge.jsonl
check "a line over the limit is refused by number" 1 - "huge.jsonl: line 2: line is 2000060 bytes long" \
    "$t replay huge.jsonl"
check "... from a pipe too" 1 - "standard input: line 2: line is 2000060 bytes long" "cat huge.jsonl | $t replay -"
printf '{"type":"timelineCreated","data":{"timeline":"a","name":"\xff"}}\n' >utf8.jsonl
check "invalid UTF-8 in a log is refused" 1 - "utf8.jsonl: line 1" "$t replay utf8.jsonl"
printf '\x00\x01\x02binary\n' >binary.jsonl
check "binary garbage is refused" 1 - "binary.jsonl: line 1" "$t replay binary.jsonl"

# --- Usage ----------------------------------------------------------------------------------
check "--version" 0 '^timeline [0-9]+\.[0-9]+\.[0-9]+$' - "$t --version"
check "an unknown command" 2 - "unknown command 'replya'; did you mean 'replay'" "$t replya x"
check "no command" 2 - "missing command" "$t"

echo "$passed passed, $failed failed"
[[ $failed == 0 ]]
