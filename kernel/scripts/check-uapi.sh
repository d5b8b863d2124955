#!/bin/sh
# check-uapi.sh KERNEL_USR_INCLUDE - the library's copies of the series'
# UAPI headers say what the patched kernel's headers say.
#
# For <linux/spawn_template.h> vs include/spawnkit/spawn_template.h and
# <linux/batch.h> vs include/spawnkit/batch_abi.h: every SPAWN_TEMPLATE_* /
# BATCH_* macro of the kernel's header has the same value in the library's
# (which may add its own), and every struct of the kernel's header has the
# same size and field offsets in both (a program compiled against each
# prints them; the outputs must be equal).  Prints one line per pair and
# exits non-zero on a difference.  Run by run-guest.sh before the boot.
set -eu
kinc=$1
top=$(cd "$(dirname "$0")/../.." && pwd)
CC=${CC:-gcc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0

check() {	# kernel header (under linux/), library header, macro prefix
	kh=$1 lh=$2 pre=$3
	# values of the prefix's macros: the kernel's must be in the library's
	for side in k l; do
		if [ $side = k ]; then inc="-isystem $kinc" h="<linux/$kh>"
		else inc="-I $top/include" h="<spawnkit/$lh>"; fi
		echo "#include $h" | $CC $inc -dM -E -x c - |
			grep -E "^#define ${pre}[A-Z0-9_]* " | sort > "$tmp/m.$side"
	done
	missing=$(comm -23 "$tmp/m.k" "$tmp/m.l")
	if [ -n "$missing" ]; then
		echo "check-uapi: $lh lacks or differs from <linux/$kh>:"
		echo "$missing"
		bad=1
	fi
	# every struct and field of the kernel's header (comments removed):
	# size and offsets
	$CC -fpreprocessed -dD -E -P -x c "$kinc/linux/$kh" > "$tmp/nocomment.h"
	awk '/^struct [a-z_0-9]+ \{/ { s = $2; print "S " s; next }
	     s && /^\};/ { s = ""; next }
	     s && /;/ { l = $0; sub(/;.*/, "", l); sub(/\[.*/, "", l);
			n = split(l, w, /[ \t*]+/); print "F " s " " w[n] }' \
		"$tmp/nocomment.h" > "$tmp/fields"
	for side in k l; do
		if [ $side = k ]; then inc="-isystem $kinc" h="<linux/$kh>"
		else inc="-I $top/include" h="<spawnkit/$lh>"; fi
		{
			echo "#include <stdio.h>"
			echo "#include <stddef.h>"
			echo "#include $h"
			echo "int main(void) {"
			awk '$1 == "S" { printf "printf(\"%s %%zu\\n\", sizeof(struct %s));\n", $2, $2 }
			     $1 == "F" { printf "printf(\"%s.%s %%zu\\n\", offsetof(struct %s, %s));\n", $2, $3, $2, $3 }' \
				"$tmp/fields"
			echo "return 0; }"
		} > "$tmp/p.$side.c"
		$CC $inc -o "$tmp/p.$side" "$tmp/p.$side.c" && "$tmp/p.$side" > "$tmp/o.$side" ||
			{ echo "check-uapi: cannot build the layout check against $h"; bad=1; return; }
	done
	if ! cmp -s "$tmp/o.k" "$tmp/o.l"; then
		echo "check-uapi: struct layouts differ between <linux/$kh> and $lh:"
		diff "$tmp/o.k" "$tmp/o.l" || true
		bad=1
	fi
	echo "check-uapi: $lh: $(wc -l < "$tmp/m.k") macros, $(wc -l < "$tmp/o.k") sizes/offsets as <linux/$kh>"
}

check spawn_template.h spawn_template.h SPAWN_TEMPLATE_
check batch.h batch_abi.h BATCH_
exit $bad
