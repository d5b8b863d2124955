#!/bin/sh
# install-deps.sh [COMPONENT...] - install what the build and tests need.
#
# Every machine starts bare, so `make test` and `make bench` call this first.
# Each component lists its needs in scripts/deps/<component>.apt (Debian
# packages) and scripts/deps/<component>.pip (PyPI requirement lines for the
# project's virtual environment, build/venv: see scripts/venv.sh).  Nothing is
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

# pip into the project's virtual environment (build/venv, see venv.sh),
# never into the system interpreter; requirements that are already
# satisfied make no network request.
pips=
for c in $comps; do
	[ -f "$c.pip" ] && pips="$pips $c.pip"
done
if [ -n "$pips" ]; then
	PY=$(../venv.sh)
	for f in $pips; do
		$PY -m pip install -q --disable-pip-version-check -r "$f"
	done
fi
