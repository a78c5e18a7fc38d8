# Runs inside the sandbox (bash -c "$(cat checks.sh)" checks NAME=allow|deny ...), in the
# project directory. For each check prints "NAME ok" when the outcome is the expected one, else
# "NAME WRONG ...", followed by the check's output prefixed with "  NAME| ". An attack "fails"
# when its command exits non-zero; nothing it prints may contain a secret (the test checks).
run_check() {
  case "$1" in
    read_ssh_key) cat "$HOME/.ssh/id_rsa" ;;
    list_ssh) ls -a "$HOME/.ssh" && test -n "$(ls -A "$HOME/.ssh")" ;;
    read_aws) cat "$HOME/.aws/credentials" ;;
    read_kube) cat "$HOME/.kube/config" ;;
    read_docker) cat "$HOME/.docker/config.json" ;;
    read_gnupg) cat "$HOME"/.gnupg/private-keys-v1.d/* ;;
    read_env) cat .env ;;
    read_env_production) cat .env.production ;;
    read_deep_env) cat a/b/c/d/e/.env ;;
    read_key_link) cat key-link ;;
    write_env) echo planted > .env ;;
    write_hook) mkdir -p .git/hooks && echo 'echo pwned' > .git/hooks/pre-commit ;;
    rename_git) mv .git .git.old && mkdir -p .git/hooks && echo 'echo pwned' > .git/hooks/pre-commit ;;
    rename_hooks) mv .git/hooks .git/hooks.old && mkdir .git/hooks && echo 'echo pwned' > .git/hooks/pre-commit ;;
    write_git_config) printf '[core]\n\thooksPath = /tmp\n' >> .git/config ;;
    write_etc) echo x > /etc/pmg-e2e ;;
    write_usr) echo x > /usr/pmg-e2e ;;
    write_usr_bin) echo x > /usr/bin/node ;;
    write_outside) mkdir /pmg-e2e ;;
    write_home) echo x >> "$HOME/.bashrc" ;;
    write_locked) echo x >> locked.txt ;;
    exec_denied) perl -e 'print "perl ran\n"' ;;
    exec_curl) curl --version ;;
    umount_env) umount "$PWD/.env"; cat .env ;;
    umount_ssh) umount "$HOME/.ssh"; ls -A "$HOME/.ssh" && test -n "$(ls -A "$HOME/.ssh")" ;;
    net_out) python3 -c 'import socket; socket.create_connection(("1.1.1.1", 443), timeout=3)' ;;
    net_host_loopback) python3 -c 'import os, socket; socket.create_connection(("127.0.0.1", int(os.environ["PMG_E2E_HOST_PORT"])), timeout=3)' ;;
    no_capabilities) grep -E '^CapEff:[[:space:]]*0+$' /proc/self/status ;;
    read_project) cat package.json && ls src ;;
    write_project) echo 'module.exports = 2;' > src/new.js ;;
    write_lockfile) echo '{"lockfileVersion": 3}' > package-lock.json ;;
    write_node_modules) mkdir -p node_modules/left-pad && echo 'module.exports = 1;' > node_modules/left-pad/index.js ;;
    write_tmpdir) echo scratch > "$TMPDIR/scratch" && cat "$TMPDIR/scratch" ;;
    run_node) node -e 'console.log(require("./package.json").name)' ;;
    run_python) python3 -c 'import json, sys; print(sys.version_info[:2])' ;;
    pty) python3 -c 'import os; m, s = os.openpty(); print(os.ttyname(s))' ;;
    *) echo "unknown check $1"; return 99 ;;
  esac
}
for spec in "$@"; do
  name=${spec%%=*}
  expect=${spec#*=}
  out=$(run_check "$name" 2>&1)
  rc=$?
  if [ "$rc" -ne 99 ] && { { [ "$expect" = allow ] && [ "$rc" -eq 0 ]; } || { [ "$expect" = deny ] && [ "$rc" -ne 0 ]; }; }; then
    echo "$name ok"
  else
    echo "$name WRONG: expected $expect, exit status $rc"
  fi
  printf '%s\n' "$out" | sed "s/^/  $name| /"
done
