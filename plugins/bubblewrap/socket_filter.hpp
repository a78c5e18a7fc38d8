#pragma once
// The seccomp filter that keeps the sandbox from connecting to Unix sockets. A socket file under
// a mounted path (an SSH agent in /tmp, docker.sock, the session bus in /run/user) would be
// reachable through the mount; the filter refuses to create AF_UNIX sockets at all, so neither
// those nor abstract-namespace sockets can be reached. socketpair(2), which npm and pip use for
// their children's stdio, is unaffected. io_uring is refused too: its requests are not seen by
// seccomp, and it can create sockets.
#include <string>

namespace pmg::bubblewrap {

// The classic-BPF program (struct sock_filter array) for the machine's native architecture, as
// bwrap --seccomp and pmg-netbridge --seccomp read it. A syscall of another architecture (32-bit
// int 0x80) kills the process: its socketcall(2) arguments cannot be inspected.
std::string unix_socket_filter_program();

}  // namespace pmg::bubblewrap
