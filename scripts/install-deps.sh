#!/bin/sh
# install-deps.sh [COMPONENT...] - install what the build and tests need.
#
# Every machine starts bare, so `make test` and `make bench` call this first.
# Each component lists its needs in scripts/deps/<component>.apt (Debian
# packages) and scripts/deps/<component>.pip (PyPI requirement lines for the
# real interpreter /usr/bin/python3, never a pyenv shim).  Nothing is
# installed that is already there, so a second run costs a few dpkg queries.
set -eu
cd "$(dirname "$0")/deps"
comps=${*:-$(ls | sed 's/\..*//' | sort -u)}

missing=
for c in $comps; do
	[ -f "$c.apt" ] || continue
	for p in $(grep -v '^#' "$c.apt"); do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
			missing="$missing $p"
	done
done
if [ -n "$missing" ]; then
	echo "install-deps: apt-get install$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

PY=/usr/bin/python3
for c in $comps; do
	[ -f "$c.pip" ] || continue
	if ! $PY - "$c.pip" <<'PYEOF'
import sys, importlib.metadata as md
from packaging.requirements import Requirement
ok = True
for line in open(sys.argv[1]):
    line = line.split('#')[0].strip()
    if not line:
        continue
    r = Requirement(line)
    try:
        v = md.version(r.name)
    except md.PackageNotFoundError:
        ok = False
        continue
    if r.specifier and v not in r.specifier:
        ok = False
sys.exit(0 if ok else 1)
PYEOF
	then
		echo "install-deps: pip install -r $c.pip"
		$PY -m pip install -q --break-system-packages -r "$c.pip"
	fi
done
