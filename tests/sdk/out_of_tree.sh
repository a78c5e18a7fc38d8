#!/usr/bin/env bash
# The SDK promise, checked the way a third party meets it: install this build tree into a fresh
# prefix, build the examples from clean build directories against that prefix with
# find_package(pmg), and load them into the installed host. The blocks marked guide:begin/end are
# the commands docs/plugin-guide.md shows.
#
# usage: out_of_tree.sh SOURCE_DIR BUILD_DIR CXX_COMPILER
set -euo pipefail
source_dir=$1
build_dir=$2
cxx=$3

work=$(mktemp -d "${TMPDIR:-/tmp}/pmg-sdk-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
# Every run below reads and writes this config directory (and its event log) only.
export PMG_CONFIG_DIR=$work/config
# The sandbox lets everything write TMPDIR: the projects under $work must not be inside it.
mkdir -p "$work/tmp"
export TMPDIR=$work/tmp
unset PMG_PLUGIN_PATH PMG_SANDBOX_BACKEND

step() { printf '\n== %s\n' "$*"; }
fail() {
  printf 'FAIL: %s\n' "$*" >&2
  exit 1
}
# expect_output WHAT NEEDLE COMMAND...: the command succeeds and its output contains NEEDLE.
expect_output() {
  local what=$1 needle=$2 out status=0
  shift 2
  out=$("$@" 2>&1) || status=$?
  ((status == 0)) || fail "$what: \`$*\` exited $status:"$'\n'"$out"
  [[ $out == *"$needle"* ]] || fail "$what: the output lacks '$needle':"$'\n'"$out"
  printf '%s\n' "$out"
}
# expect_error WHAT COMMAND... <<< NEEDLES: the command fails and its output contains every
# NEEDLE (one a line).
expect_error() {
  local what=$1 out status=0 needle
  shift
  out=$("$@" 2>&1) || status=$?
  ((status != 0)) || fail "$what: \`$*\` succeeded:"$'\n'"$out"
  while IFS= read -r needle; do
    [[ $out == *"$needle"* ]] || fail "$what: the output lacks '$needle':"$'\n'"$out"
  done
  printf '%s\n' "$out"
}
# configure_and_build SOURCE BUILD PREFIX: a clean out-of-tree build with warnings as errors,
# which must find the package in PREFIX and nowhere else.
configure_and_build() {
  cmake -S "$1" -B "$2" -DCMAKE_PREFIX_PATH="$3" -DCMAKE_CXX_COMPILER="$cxx" \
    -DCMAKE_CXX_FLAGS="-Wall -Wextra -Werror" >"$2.log" 2>&1 || fail "configure $1:"$'\n'"$(cat "$2.log")"
  grep -qx "pmg_DIR:PATH=$3/lib/cmake/pmg" "$2/CMakeCache.txt" || fail "$1 did not use the pmg package in $3"
  cmake --build "$2" >>"$2.log" 2>&1 || fail "build $1:"$'\n'"$(cat "$2.log")"
}
# Runs the installed host with nothing in the environment but HOME and PATH.
bare_pmg() { env -i HOME="$work/home" PATH=/usr/bin:/bin "$prefix/bin/pmg" "$@"; }

step "install the build tree into $prefix"
# guide:begin install
cmake --install "$build_dir" --prefix "$prefix"
# guide:end install
for f in bin/pmg include/pmg/plugin.hpp include/pmg/builtin_profiles_data.hpp \
  lib/pmg/plugins/libpmg-bubblewrap.so lib/pmg/plugins/libpmg-pm-npm.so lib/pmg/plugins/libpmg-pm-pip.so \
  lib/cmake/pmg/pmgConfig.cmake lib/cmake/pmg/pmgConfigVersion.cmake lib/cmake/pmg/pmgTargets.cmake \
  lib/cmake/pmg/PmgPlugin.cmake share/pmg/profiles/npm-restrictive.yml share/doc/pmg/plugin-guide.md; do
  [[ -e $prefix/$f ]] || fail "the install lacks $f"
done
cmp -s "$source_dir/cmake/PmgPlugin.cmake" "$prefix/lib/cmake/pmg/PmgPlugin.cmake" ||
  fail "the installed PmgPlugin.cmake differs from cmake/PmgPlugin.cmake"

step "the installed host finds its own plugins with no environment but HOME and PATH"
for plugin in bubblewrap pm-npm pm-pip; do
  expect_output "installed pmg" "$prefix/lib/pmg/plugins/libpmg-$plugin.so" bare_pmg setup info >/dev/null
done
step "the build tree's host finds the build tree's plugins"
expect_output "build-tree pmg" "$build_dir/lib/pmg/plugins/libpmg-pm-npm.so" "$build_dir/bin/pmg" setup info >/dev/null

step "build examples/pm-cargo against the installed package"
configure_and_build "$source_dir/examples/pm-cargo" "$work/cargo" "$prefix"
cargo_plugins=$work/cargo/lib/pmg/plugins
# Hidden visibility: apart from what the standard library's and Boost's headers mark visible
# themselves (template instances an unoptimised build does not inline), the plugin exports its
# info record and its factory, none of its own code.
exported=$(nm -D --defined-only "$cargo_plugins/libpmg-cargo.so" | c++filt |
  grep -v -E ' (boost|std|__gnu_cxx)::| for (boost|std|__gnu_cxx)::' |
  awk '{print $3}' | sort | tr '\n' ' ')
[[ $exported == "pmg_create_package_manager pmg_plugin_info " ]] ||
  fail "libpmg-cargo.so exports more than its factory and info record: $exported"

step "the installed host loads it from PMG_PLUGIN_PATH"
# guide:begin cargo-setup-info
PMG_PLUGIN_PATH="$work/cargo/lib/pmg/plugins" "$prefix/bin/pmg" setup info
# guide:end cargo-setup-info
info=$(expect_output "cargo on PMG_PLUGIN_PATH" "$cargo_plugins/libpmg-cargo.so (cargo)" \
  env PMG_PLUGIN_PATH="$cargo_plugins" "$prefix/bin/pmg" setup info)
grep -Eq "package-manager +cargo +0\.1\.0 +ABI 1 " <<<"$info" ||
  fail "setup info does not show the cargo plugin's kind, name, version and ABI:"$'\n'"$info"

step "installed into the same prefix, the host finds it with no environment"
# guide:begin cargo-install
cmake --install "$work/cargo" --prefix "$prefix"
# guide:end cargo-install
expect_output "installed cargo plugin" "$prefix/lib/pmg/plugins/libpmg-cargo.so (cargo)" bare_pmg setup info >/dev/null
[[ -f $prefix/share/pmg/profiles/cargo-restrictive.yml ]] || fail "the cargo profile was not installed"

step "cargo runs sandboxed under the example's profile"
cargo_bin=$(PATH=$PATH:$HOME/.cargo/bin command -v cargo || true)
if [[ -z $cargo_bin && $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
  echo "cargo is not installed: trying apt-get install -y cargo"
  DEBIAN_FRONTEND=noninteractive timeout 300 apt-get install -y cargo >"$work/apt.log" 2>&1 || tail -5 "$work/apt.log"
  cargo_bin=$(command -v cargo || true)
fi
if [[ -z $cargo_bin ]]; then
  echo "SKIPPED: cargo is not installed and could not be installed with apt-get; the sandboxed cargo runs are not checked"
else
  profile=$source_dir/examples/pm-cargo/cargo-restrictive.yml
  events=$PMG_CONFIG_DIR/events.jsonl
  (
    export PATH=$prefix/bin:$(dirname "$cargo_bin"):$PATH
    mkdir -p "$work/project" && cd "$work/project"
    # guide:begin cargo-version
    pmg --sandbox --sandbox-profile="$profile" cargo --version
    # guide:end cargo-version
  ) || fail "pmg --sandbox cargo --version failed"
  grep '"type":"run"' "$events" | tail -1 | grep '"pm":"cargo"' | grep '"backend":"bubblewrap"' |
    grep -q '"exit_status":"0"' || fail "the event log has no sandboxed cargo run:"$'\n'"$(cat "$events")"

  # A build script is code from a dependency that cargo compiles and runs: it keeps what a
  # build needs and loses the project's secrets and its ways to persist.
  attack=$work/cargo-attack
  cp -r "$source_dir/tests/sdk/fixtures/cargo-attack" "$attack"
  mkdir -p "$attack/.git/hooks"
  echo "API_KEY=secret" >"$attack/.env"
  # The project stays read-only, so the lock file cargo fills in must exist (see the profile).
  : >"$attack/Cargo.lock"
  out=$(cd "$attack" && PATH=$prefix/bin:$(dirname "$cargo_bin"):$PATH \
    pmg --sandbox --sandbox-profile="$profile" cargo build --offline 2>&1) ||
    fail "the sandboxed cargo build failed:"$'\n'"$out"
  for attempt in "read .env: blocked" "write .git/hooks: blocked" "write src: blocked" "write OUT_DIR: SUCCEEDED"; do
    [[ $out == *"attack $attempt"* ]] || fail "the build script's '${attempt%%:*}' was not ${attempt#*: }:"$'\n'"$out"
  done
  [[ ! -e $attack/.git/hooks/pre-commit && ! -e $attack/src/planted.rs ]] || fail "the build script planted files"
fi

step "build examples/backend-skeleton; it runs only when selected by name, and says it does not sandbox"
configure_and_build "$source_dir/examples/backend-skeleton" "$work/skeleton" "$prefix"
skeleton_plugins=$work/skeleton/lib/pmg/plugins
info=$(expect_output "skeleton on PMG_PLUGIN_PATH" "$skeleton_plugins/libpmg-skeleton.so" \
  env PMG_PLUGIN_PATH="$skeleton_plugins" "$prefix/bin/pmg" setup info)
grep -Eq "backend +skeleton +0\.1\.0 +ABI 1 " <<<"$info" || fail "setup info does not list the skeleton backend:"$'\n'"$info"
out=$(expect_output "skeleton selected by name" "hello from the skeleton" \
  env PMG_PLUGIN_PATH="$skeleton_plugins" PMG_SANDBOX_BACKEND=skeleton \
  "$prefix/bin/pmg" sandbox exec --sandbox-profile=npm-restrictive -- echo "hello from the skeleton")
[[ $out == *"skeleton backend does not sandbox"*UNSANDBOXED* ]] || fail "the skeleton ran without its warning:"$'\n'"$out"
[[ $out == *"the skeleton backend does not enforce sandbox policies"* ]] || fail "the host did not warn:"$'\n'"$out"
grep -Eq "skeleton +available, DOES NOT ENFORCE" <<<"$info" || fail "setup info does not flag the skeleton:"$'\n'"$info"
# Selected by config.yml rather than named for the run, it is refused.
printf 'sandbox:\n  backend: skeleton\n' >"$PMG_CONFIG_DIR/config.yml"
expect_error "skeleton as a default" env PMG_PLUGIN_PATH="$skeleton_plugins" \
  "$prefix/bin/pmg" sandbox exec --sandbox-profile=npm-restrictive -- echo "must not run" <<EOF
the skeleton backend ($skeleton_plugins/libpmg-skeleton.so) does not enforce sandbox policies
PMG_SANDBOX_BACKEND=skeleton
EOF
rm "$PMG_CONFIG_DIR/config.yml"

step "a copy of the cargo example built against headers of another plugin ABI is refused"
# The headers of a future pmg: the same package with plugin_abi_version one higher.
future=$work/future-prefix
mkdir -p "$future/lib"
cp -r "$prefix/include" "$future/"
cp -r "$prefix/lib/cmake" "$future/lib/"
abi=$(sed -n 's/^inline constexpr int plugin_abi_version = \([0-9]*\);$/\1/p' "$future/include/pmg/plugin.hpp")
[[ -n $abi ]] || fail "cannot read plugin_abi_version from the installed plugin.hpp"
sed -i "s/^inline constexpr int plugin_abi_version = $abi;\$/inline constexpr int plugin_abi_version = $((abi + 1));/" \
  "$future/include/pmg/plugin.hpp"
configure_and_build "$source_dir/examples/pm-cargo" "$work/cargo-future" "$future"
expect_error "ABI mismatch" env PMG_PLUGIN_PATH="$work/cargo-future/lib/pmg/plugins" "$prefix/bin/pmg" setup info <<EOF
$work/cargo-future/lib/pmg/plugins/libpmg-cargo.so cannot be loaded
built for plugin ABI $((abi + 1)) but this pmg uses ABI $abi
EOF

step "plugins that must be refused: no info record, two plugins for one package manager"
configure_and_build "$source_dir/tests/sdk/fixtures/bad-plugins" "$work/bad" "$prefix"
expect_error "no info record" env PMG_PLUGIN_PATH="$work/bad/no-info" "$prefix/bin/pmg" setup info <<EOF
$work/bad/no-info/libpmg-no-info.so cannot be loaded
has no 'pmg_plugin_info' record
EOF
expect_error "two plugins answer to cargo" env PMG_PLUGIN_PATH="$work/bad/cargo-fork:$cargo_plugins" \
  "$prefix/bin/pmg" cargo build <<EOF
two plugins answer to the package manager 'cargo'
$work/bad/cargo-fork/libpmg-cargo-fork.so
$cargo_plugins/libpmg-cargo.so
EOF

step "all SDK checks passed"
