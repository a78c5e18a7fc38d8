#pragma once
// A fixed, fake Debian 12 machine for translation tests: merged /usr with /bin, /lib ... as
// symlinks, a user with credentials in HOME, and a project with .env files and a .git without
// hooks. Tests add what their case needs on top.
#include <string>

#include "pmg/context.hpp"
#include "pmg/fs_view.hpp"
#include "pmg/policy_yaml.hpp"

namespace pmg::bubblewrap::testing {

// A policy written inline in a test.
inline Policy policy(const std::string& yaml) { return parse_policy_yaml(yaml, "test policy"); }

inline Context user_context() { return Context{"/home/user", "/home/user/project", "/tmp", 1000, 1000}; }

inline Context root_context() {
  Context c = user_context();
  c.uid = 0;
  c.gid = 0;
  return c;
}

inline FakeFs fake_machine() {
  FakeFs fs;
  for (const char* f : {"/usr/bin/node", "/usr/bin/python3.11", "/usr/bin/bash", "/usr/bin/sh", "/usr/bin/env",
                        "/usr/bin/curl", "/usr/bin/wget", "/usr/bin/ssh", "/usr/bin/git", "/usr/bin/perl",
                        "/usr/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib64/ld-linux-x86-64.so.2",
                        "/usr/sbin/ldconfig", "/usr/share/ca-certificates/ca.crt"})
    fs.add_file(f);
  fs.add_symlink("/usr/bin/python3", "python3.11");
  fs.add_symlink("/bin", "usr/bin");
  fs.add_symlink("/sbin", "usr/sbin");
  fs.add_symlink("/lib", "usr/lib");
  fs.add_symlink("/lib64", "usr/lib64");
  for (const char* f : {"/etc/passwd", "/etc/group", "/etc/hosts", "/etc/resolv.conf", "/etc/nsswitch.conf",
                        "/etc/shadow", "/etc/gshadow", "/etc/ld.so.cache", "/etc/npmrc", "/etc/ssl/certs/ca.pem",
                        "/etc/ssl/private/host.key", "/etc/ssh/ssh_host_ed25519_key",
                        "/etc/ssh/ssh_host_ed25519_key.pub", "/etc/ssh/sshd_config"})
    fs.add_file(f);
  fs.add_symlink("/etc/alternatives/cc", "/usr/bin/gcc");
  fs.add_dir("/opt");
  fs.add_file("/var/lib/dpkg/status");
  fs.add_dir("/sys/kernel");
  fs.add_dir("/proc");
  fs.add_dir("/dev");
  fs.add_dir("/tmp");

  for (const char* f : {"/home/user/.ssh/id_rsa", "/home/user/.ssh/known_hosts", "/home/user/.aws/credentials",
                        "/home/user/.kube/config", "/home/user/.docker/config.json", "/home/user/.gnupg/pubring.kbx",
                        "/home/user/.npmrc", "/home/user/.npm/_cacache/index-v5/00/entry",
                        "/home/user/.config/gh/hosts.yml", "/home/user/.bashrc"})
    fs.add_file(f);
  for (const char* f : {"/home/user/project/package.json", "/home/user/project/src/index.js",
                        "/home/user/project/.env", "/home/user/project/.env.production",
                        "/home/user/project/src/config/.env", "/home/user/project/.git/HEAD",
                        "/home/user/project/.git/config"})
    fs.add_file(f);
  return fs;
}

}  // namespace pmg::bubblewrap::testing
