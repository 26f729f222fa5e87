#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Install the Debian packages tracecost needs, idempotently: ask dpkg-query
# first, run apt-get only for what is missing, and only as root (otherwise
# print the apt-get line and fail).
set -eu
PKGS="gcc make binutils pkg-config liburcu-dev libjansson-dev libcmocka-dev jq man-db groff-base time bsdextrautils"
missing=""
for p in $PKGS; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case "$st" in
	*" installed") ;;
	*) missing="$missing $p" ;;
	esac
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "tracecost: missing packages:$missing" >&2
	echo "run as root: apt-get update && apt-get install -y$missing" >&2
	exit 1
fi
echo "deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
