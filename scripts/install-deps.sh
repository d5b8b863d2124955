#!/bin/sh
# install-deps.sh [COMPONENT...] - install what the build and tests need.
#
# Every machine starts bare, so `make test` and `make bench` call this first.
# Each component lists its needs in scripts/deps/<component>.apt (Debian
# packages) and scripts/deps/<component>.pip (PyPI requirement lines for the
# real interpreter behind python3, never the pyenv shim itself).  Nothing is
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

# pip for the real interpreter (see find-python.sh); requirements that are
# already satisfied make no network request.
PY=$(../find-python.sh)
for c in $comps; do
	[ -f "$c.pip" ] || continue
	PIP_ROOT_USER_ACTION=ignore PIP_BREAK_SYSTEM_PACKAGES=1 $PY -m pip install -q --disable-pip-version-check -r "$c.pip"
done
