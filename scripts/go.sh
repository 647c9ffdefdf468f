#!/usr/bin/env bash
# Prints the path of a go command new enough for this checkout (go.mod's
# "go" line), installing one first when there is none or only an older one:
#
#   GO=$(scripts/go.sh)
#
# The pinned toolchain is the golang.org/toolchain module of that version,
# fetched from the Go module proxy (the first http(s) entry of GOPROXY,
# default https://proxy.golang.org) into ~/.cache/extenddb/toolchain, with
# a progress bar. An older Go, such as Debian 12's golang-go 1.19, can
# neither build this project nor fetch a newer toolchain itself.
# EXTENDDB_GO=fetch uses the pinned toolchain even when a local Go would do.
set -euo pipefail
cd "$(dirname "$0")/.."
want=$(awk '$1 == "go" { print $2; exit }' go.mod)
cache=${EXTENDDB_CACHE:-$HOME/.cache/extenddb}/toolchain

# new_enough GOVERSION: whether goX.Y.Z is at least $want.
new_enough() {
	local have=${1#go}
	[[ $(printf '%s\n%s\n' "$want" "$have" | sort -V | head -n1) == "$want" ]]
}

candidates=("$(command -v go 2>/dev/null || true)" /usr/local/go/bin/go "$HOME/go/bin/go" "$HOME/sdk/go$want/bin/go")
[[ ${EXTENDDB_GO:-} == fetch ]] && candidates=()
for go in "${candidates[@]}"; do
	[[ -n $go && -x $go ]] || continue
	# GOTOOLCHAIN=local: report this go's own version, not a download's.
	if v=$(GOTOOLCHAIN=local "$go" env GOVERSION 2>/dev/null) && new_enough "$v"; then
		echo "$go"
		exit 0
	fi
done

case $(uname -m) in
x86_64 | amd64) arch=amd64 ;;
aarch64 | arm64) arch=arm64 ;;
*) echo "no Go toolchain for $(uname -m); install Go $want from https://go.dev/dl/" >&2; exit 1 ;;
esac
os=$(uname -s | tr '[:upper:]' '[:lower:]')
name=v0.0.1-go$want.$os-$arch
dir=$cache/golang.org/toolchain@$name
if [[ ! -x $dir/bin/go ]]; then
	proxy=https://proxy.golang.org
	IFS=',|' read -ra entries <<<"${GOPROXY:-}"
	for e in "${entries[@]}"; do
		if [[ $e == http* ]]; then proxy=${e%/}; break; fi
	done
	echo "Go $want not found (this checkout needs it): fetching it from $proxy into $cache" >&2
	mkdir -p "$cache"
	# A fresh Debian image has neither curl nor wget, nor CA certificates.
	if ! command -v curl >/dev/null && ! command -v wget >/dev/null && command -v apt-get >/dev/null && [[ $(id -u) == 0 ]]; then
		echo "installing curl and CA certificates to fetch Go" >&2
		apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq curl ca-certificates >&2
	fi
	zip=$cache/$name.zip
	if command -v curl >/dev/null; then
		curl -fL --progress-bar -o "$zip.part" "$proxy/golang.org/toolchain/@v/$name.zip"
	else
		wget -q --show-progress -O "$zip.part" "$proxy/golang.org/toolchain/@v/$name.zip"
	fi
	mv "$zip.part" "$zip"
	echo "unpacking Go $want" >&2
	if command -v unzip >/dev/null; then
		unzip -q -o "$zip" -d "$cache"
	else
		python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$zip" "$cache"
	fi
	# Zip archives do not keep the execute bits the module's files need.
	chmod -R u+x "$dir/bin" "$dir/pkg/tool"
	rm -f "$zip"
fi
echo "$dir/bin/go"
