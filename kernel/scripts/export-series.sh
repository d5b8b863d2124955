#!/bin/sh
# export-series.sh OUTDIR - the series as you would post it, signed off by you.
#
# Applies kernel/patches/*.patch with `git am` to a scratch copy of the
# pristine tree (the one build-kernel.sh unpacked into $SPAWNKIT_CACHE),
# makes you the author of every patch and adds your Signed-off-by (both
# from your git config: user.name, user.email), and writes
# `git format-patch --cover-letter` output into OUTDIR, with the cover
# letter's subject and body taken from kernel/cover-letter.txt (first line:
# subject; after a blank line: body).  Nothing in the tree names a person:
# the sign-off is the exporter's, added here.
#
# Then: scripts/checkpatch.pl --strict OUTDIR/*.patch, and
# scripts/get_maintainer.pl for the Cc list.
set -eu
out=${1:?usage: export-series.sh OUTDIR}
here=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${SPAWNKIT_CACHE:-/var/cache/spawnkit}
KDIR=$(ls -d "$CACHE"/linux-* 2>/dev/null | head -n 1)
[ -n "$KDIR" ] && [ -d "$KDIR/src/.git" ] ||
	{ echo "export-series: no unpacked tree in $CACHE (run make -C kernel bzImage)" >&2; exit 1; }
name=$(git config user.name || true)
email=$(git config user.email || true)
[ -n "$name" ] && [ -n "$email" ] ||
	{ echo "export-series: set git config user.name and user.email first" >&2; exit 1; }

wt=$(mktemp -d "${TMPDIR:-/tmp}/export-series.XXXXXX")
trap 'git -C "$KDIR/src" worktree remove --force "$wt" >/dev/null 2>&1 || true; rm -rf "$wt"' EXIT
rmdir "$wt"
git -C "$KDIR/src" worktree add -q --detach "$wt" pristine
for p in $(ls "$here"/patches/*.patch | sort); do
	git -C "$wt" -c user.name="$name" -c user.email="$email" am -q "$p"
done
n=$(ls "$here"/patches/*.patch | wc -l)
# you are the author; keep each patch's date and message, add your sign-off
git -C "$wt" -c user.name="$name" -c user.email="$email" rebase -q \
	--exec 'git commit -q --amend --no-edit --reset-author --signoff' "HEAD~$n" \
	2>"$wt.log" || { cat "$wt.log" >&2; exit 1; }
rm -f "$wt.log"
mkdir -p "$out"
git -C "$wt" -c user.name="$name" -c user.email="$email" format-patch -q \
	--cover-letter --thread=shallow -o "$(cd "$out" && pwd)" "HEAD~$n"
cover=$(ls "$out"/0000-cover-letter.patch)
subject=$(head -n 1 "$here/cover-letter.txt")
tail -n +3 "$here/cover-letter.txt" > "$wt.body"
# the cover letter's placeholders: subject and blurb
awk -v subj="$subject" -v bodyfile="$wt.body" '
	/^Subject: / && !done_s { sub(/\*\*\* SUBJECT HERE \*\*\*/, subj); done_s = 1 }
	/^\*\*\* BLURB HERE \*\*\*$/ { while ((getline l < bodyfile) > 0) print l; next }
	{ print }' "$cover" > "$cover.new" && mv "$cover.new" "$cover"
rm -f "$wt.body"
echo "export-series: $((n + 1)) files in $out, signed off by $name <$email>"
