#!/usr/bin/env bash
# Runs the proxy test binaries again as an unprivileged user: CI runs as root, and the proxy,
# the bridge and bubblewrap must work for ordinary users too. Creates the user pmgtest when it
# is missing, copies the binaries to a directory that user can reach (the build tree may not
# be), and runs each with runuser. Arguments: the test binaries, then pmg-netbridge last.
set -euo pipefail
if [[ $(id -u) -ne 0 ]]; then
  echo "not root: the ordinary test run is already unprivileged"
  exit 77
fi
user=pmgtest
if ! id -u "$user" >/dev/null 2>&1; then
  useradd --system --no-create-home --shell /usr/sbin/nologin "$user"
fi

dir=$(mktemp -d /tmp/pmg-proxy-unprivileged-XXXXXX)
trap 'rm -rf "$dir"' EXIT
chmod 0755 "$dir"
cp "$@" "$dir/"
chmod 0755 "$dir"/*
bridge="$dir/$(basename "${@: -1}")"
cd "$dir"

status=0
for binary in "${@:1:$#-1}"; do
  name=$(basename "$binary")
  echo "== $name as $user"
  runuser -u "$user" -- env HOME="$dir" PMG_NETBRIDGE="$bridge" "$dir/$name" || status=1
done
exit $status
