#pragma once
// The fixed path lists of the Linux sandbox, in one place with the reason for each.
#include <array>
#include <string_view>

namespace pmg::bubblewrap {

// Mounted read-only in every sandbox (where they exist), whatever the policy says: programs,
// their libraries and loader, and the system configuration they read. A symlink among them
// (/lib -> usr/lib on merged-/usr systems) is recreated as the same symlink.
inline constexpr std::array<std::string_view, 10> system_paths{
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/etc", "/opt", "/var/lib", "/sys"};

// Roots that exist only on macOS (and ${HOME}/Library). Profiles list them for Seatbelt; here they
// are skipped with a debug note, and never created for a writable DIR/** rule.
inline constexpr std::array<std::string_view, 9> macos_only_roots{
    "/System", "/Library", "/Applications", "/Users", "/Volumes", "/private", "/cores",
    "/opt/homebrew", "/usr/local/Homebrew"};

// Secrets inside the system paths that only root may read. File permissions protect them from
// every other user; a sandbox started by root runs as uid 0 (mapped to root), which owns them,
// so they are hidden when the context's uid is 0. Globs are expanded like policy globs.
inline constexpr std::array<std::string_view, 13> root_only_secrets{
    "/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-",
    "/etc/security/opasswd",
    "/etc/ssh/ssh_host_*_key",             // the host's SSH private keys
    "/etc/ssl/private",                    // TLS private keys
    "/etc/krb5.keytab",                    // Kerberos service keys
    "/etc/NetworkManager/system-connections",  // Wi-Fi and VPN passwords
    "/var/lib/private",                    // systemd DynamicUser services' state
    "/var/lib/docker", "/var/lib/containerd",  // images and their secrets
    "/var/lib/sss"};                       // SSSD's cached credentials

// Provided by bwrap itself (--proc, --dev); policy entries below them are not bound from the
// host.
inline constexpr std::array<std::string_view, 2> kernel_filesystems{"/proc", "/dev"};

}  // namespace pmg::bubblewrap
