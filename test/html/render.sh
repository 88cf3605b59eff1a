#!/bin/sh
# render.sh - render an HTML file in headless Chromium, as a person's
# browser would, with no network and a throw-away profile.
#
#   test/html/render.sh dom FILE.html          the DOM after loading, on stdout
#   test/html/render.sh png FILE.html OUT.png  a 1200x2000 screenshot
#
# Exit 77 when no Chromium is installed (Debian package chromium).
set -eu
mode=$1 file=$2 out=${3:-}
browser=$(command -v chromium || command -v chromium-browser || true)
[ -n "$browser" ] || exit 77
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
set -- --headless --no-sandbox --disable-gpu --disable-background-networking \
	--disable-component-update --disable-sync --no-first-run \
	--disable-dev-shm-usage --user-data-dir="$profile"
case $mode in
dom)	timeout 60 "$browser" "$@" --dump-dom "file://$(realpath "$file")" 2>/dev/null ;;
png)	timeout 60 "$browser" "$@" --window-size=1200,2000 \
		--screenshot="$out" "file://$(realpath "$file")" >/dev/null 2>&1 ;;
*)	echo "usage: render.sh dom|png FILE [OUT]" >&2; exit 2 ;;
esac
