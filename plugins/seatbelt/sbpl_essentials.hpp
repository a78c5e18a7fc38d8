#pragma once
// The permissions every package manager needs on macOS, whatever its policy says. They are the
// floor under `(deny default)`: without them a process cannot start, look up its own user, or
// write to /dev/null. This is the only place they are listed. Each group says why it exists, so
// a reviewer can check that nothing here grants access to user data.
//
// Paths are written in their real form (/private/etc, not /etc): Seatbelt compares the path a
// process reaches after every symlink is resolved, so a rule for /etc would never match a read
// of /etc/hosts, which the kernel sees as /private/etc/hosts.
#include <string_view>

namespace pmg::seatbelt {

// When a group is needed.
enum class EssentialWhen {
  always,
  outbound,         // the policy allows outbound connections (directly or through the proxy)
  direct_outbound,  // outbound connections go straight out, not through pmg's proxy
};

struct EssentialGroup {
  std::string_view why;    // written above the rules as an SBPL comment
  EssentialWhen when;
  std::string_view rules;  // constant SBPL; never contains policy data
};

inline constexpr EssentialGroup essential_groups[] = {
    {"Package managers run lifecycle scripts as child processes, wait for them and stop them. "
     "process-exec is allowed here for every program the sandbox can read; deny_exec rules "
     "below take it away again.",
     EssentialWhen::always,
     "(allow process-fork)\n"
     "(allow process-exec)\n"
     "(allow signal (target same-sandbox))\n"
     "(allow process-info* (target same-sandbox))\n"},

    {"libc and the system logger: os_log/asl messages, and notify(3), through which libc learns "
     "that DNS or time-zone settings changed.",
     EssentialWhen::always,
     "(allow mach-lookup\n"
     "  (global-name \"com.apple.system.logger\")\n"
     "  (global-name \"com.apple.logd\")\n"
     "  (global-name \"com.apple.system.notification_center\"))\n"},

    {"User and group lookups (getpwuid, getgrgid, group membership): npm, pip and git ask who "
     "the current user is and where their home directory is.",
     EssentialWhen::always,
     "(allow mach-lookup\n"
     "  (global-name \"com.apple.system.opendirectoryd.libinfo\")\n"
     "  (global-name \"com.apple.system.opendirectoryd.membership\"))\n"},

    {"confstr(_CS_DARWIN_USER_TEMP_DIR / _CS_DARWIN_USER_CACHE_DIR) asks this service for the "
     "per-user temporary and cache directories under /var/folders.",
     EssentialWhen::always,
     "(allow mach-lookup (global-name \"com.apple.bsd.dirhelper\"))\n"},

    {"TLS certificate checks through Security.framework (git over https, Python with the system "
     "trust store, Go programs). Only with network access: trustd fetches certificates and "
     "revocation data over the network on a caller's behalf, which would be a way around a "
     "network ban.",
     EssentialWhen::outbound,
     "(allow mach-lookup\n"
     "  (global-name \"com.apple.SecurityServer\")\n"
     "  (global-name \"com.apple.securityd.xpc\")\n"
     "  (global-name \"com.apple.trustd.agent\"))\n"},

    {"Name resolution: getaddrinfo talks to mDNSResponder over this socket. Not needed when "
     "traffic goes through pmg's proxy, which resolves names itself; denying it there also "
     "closes DNS as a way to smuggle data out.",
     EssentialWhen::direct_outbound,
     "(allow network-outbound (literal \"/private/var/run/mDNSResponder\"))\n"},

    {"Facts about the machine, read through sysctl: CPU count and features, memory and page "
     "size (runtimes size thread pools and pick native binaries from them), OS name and version "
     "(uname, os.release()), limits (argument and file-descriptor maximums), load average, and "
     "whether the process runs under Rosetta. No per-process or per-user data.",
     EssentialWhen::always,
     "(allow sysctl-read\n"
     "  (sysctl-name-prefix \"hw.\")\n"
     "  (sysctl-name-prefix \"machdep.cpu.\")\n"
     "  (sysctl-name \"kern.ostype\")\n"
     "  (sysctl-name \"kern.osrelease\")\n"
     "  (sysctl-name \"kern.osversion\")\n"
     "  (sysctl-name \"kern.osproductversion\")\n"
     "  (sysctl-name \"kern.osvariant_status\")\n"
     "  (sysctl-name \"kern.version\")\n"
     "  (sysctl-name \"kern.hostname\")\n"
     "  (sysctl-name \"kern.boottime\")\n"
     "  (sysctl-name \"kern.argmax\")\n"
     "  (sysctl-name \"kern.maxfiles\")\n"
     "  (sysctl-name \"kern.maxfilesperproc\")\n"
     "  (sysctl-name \"kern.maxproc\")\n"
     "  (sysctl-name \"kern.ngroups\")\n"
     "  (sysctl-name \"kern.usrstack64\")\n"
     "  (sysctl-name \"kern.secure_kernel\")\n"
     "  (sysctl-name \"vm.loadavg\")\n"
     "  (sysctl-name \"sysctl.proc_cputype\")\n"
     "  (sysctl-name \"sysctl.proc_translated\"))\n"},

    {"POSIX semaphores: Python's multiprocessing locks (pip and build backends) are built on "
     "them.",
     EssentialWhen::always,
     "(allow ipc-posix-sem)\n"},

    {"Device files every program expects: /dev/null and /dev/zero for redirections, the random "
     "devices, /dev/tty for prompts (npm login, git credentials), /dev/fd and /dev/std* for a "
     "process's own descriptors, /dev/dtracehelper which dyld opens at every start. The /dev "
     "directory itself may be listed. Not (subpath \"/dev\"): that would include raw disk "
     "devices, which a process running as root could read around every file rule.",
     EssentialWhen::always,
     "(allow file-read* file-write* file-ioctl\n"
     "  (literal \"/dev/null\")\n"
     "  (literal \"/dev/zero\")\n"
     "  (literal \"/dev/random\")\n"
     "  (literal \"/dev/urandom\")\n"
     "  (literal \"/dev/tty\")\n"
     "  (literal \"/dev/dtracehelper\")\n"
     "  (literal \"/dev/stdin\")\n"
     "  (literal \"/dev/stdout\")\n"
     "  (literal \"/dev/stderr\")\n"
     "  (subpath \"/dev/fd\"))\n"
     "(allow file-read* (literal \"/dev\"))\n"},

    {"stat() on any path: getcwd, realpath and module resolution (node walks every parent "
     "directory looking for node_modules) stat paths they may not read. This reveals names, "
     "sizes and times, never contents.",
     EssentialWhen::always,
     "(allow file-read-metadata)\n"},

    {"The operating system itself: programs, libraries, frameworks and the dyld shared cache "
     "(/usr, /bin, /sbin, /System), the parts of /Library that hold programs (the Command Line "
     "Tools with git, make and clang for native add-ons; framework installs of Python), system "
     "configuration (/private/etc: hosts, SSL certificates, passwd; resolv.conf's target), the "
     "time zone database, /private/var/select (which shell /bin/sh runs) and the xcode-select "
     "link the /usr/bin developer-tool shims follow. Not all of /Library: third-party software "
     "keeps configuration there. The symlinks /etc, /tmp and /var themselves may be read so "
     "that paths through them resolve.",
     EssentialWhen::always,
     "(allow file-read*\n"
     "  (subpath \"/usr\")\n"
     "  (subpath \"/bin\")\n"
     "  (subpath \"/sbin\")\n"
     "  (subpath \"/System\")\n"
     "  (subpath \"/Library/Apple\")\n"
     "  (subpath \"/Library/Developer\")\n"
     "  (subpath \"/Library/Frameworks\")\n"
     "  (subpath \"/private/etc\")\n"
     "  (subpath \"/private/var/db/timezone\")\n"
     "  (subpath \"/private/var/select\")\n"
     "  (literal \"/private/var/db/xcode_select_link\")\n"
     "  (literal \"/private/var/run/resolv.conf\")\n"
     "  (literal \"/etc\")\n"
     "  (literal \"/tmp\")\n"
     "  (literal \"/var\"))\n"},
};

}  // namespace pmg::seatbelt
