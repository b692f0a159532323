#!/bin/bash
# Makes Tests/Fixtures/schema4-store with the schema-4 build (main at 6e7f44b): the same edits,
# syncs and erase as schema2-store/make.sh and schema3-store/make.sh, then what that build showed, listed and dumped.
set -euo pipefail
T=${T:-/work/tabkeep-6e7f44b}
OUT=${OUT:-$(cd "$(dirname "$0")" && pwd)}
WORK=$(mktemp -d)
A=$WORK/a; B=$WORK/b
export TABKEEP_LOCKING=lmdb
CAT=home:fixed,inbox,search,library,wallet,settings,labs:optional
$T set $A --profile alice --catalog $CAT --move settings=1 --select inbox --badge-add inbox=3 >/dev/null
$T set $A --profile bob --catalog $CAT --hide labs,search --badge inbox=7 --badge-text wallet=new >/dev/null
$T set $A --profile carol --move library=2 >/dev/null
$T set $A --profile dave --bar side --catalog notes,tasks,files:optional,trash --move trash=0 --select tasks >/dev/null
$T set $A --profile dave --move wallet=2 >/dev/null
$T set $A --profile erin --badge-add inbox=2 >/dev/null
$T set $B --profile alice --catalog $CAT --move library=1 --badge-add inbox=4 >/dev/null
$T set $B --profile frank --catalog $CAT --order home,search,inbox,library,settings,wallet --select search >/dev/null
$T set $B --profile erin --badge-add inbox=5 --select wallet >/dev/null
$T sync $A --peer $B >/dev/null
$T set $A --profile alice --badge-add inbox=1 >/dev/null
$T set $B --profile carol --hide wallet >/dev/null
$T sync $B --peer $A >/dev/null
$T erase $A --profile erin >/dev/null
$T set $A --profile bob --move inbox=3 --badge-text wallet= >/dev/null
$T set $A --profile gina --bar side --unhide files --badge tasks=9 >/dev/null
cp $A/data.mdb "$OUT/data.mdb"
for pb in alice:main bob:main carol:main dave:main dave:side erin:main frank:main gina:side; do
    $T show $A --profile ${pb%%:*} --bar ${pb##*:} --json > "$OUT/show-${pb%%:*}-${pb##*:}.json"
done
$T profiles $A > "$OUT/profiles.txt"
$T dump $A > "$OUT/v3.tkdump"
rm -rf "$WORK"
