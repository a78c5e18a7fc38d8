// pmg-netbridge runs inside the sandbox's own network namespace, where nothing but loopback
// exists. It listens on 127.0.0.1:PORT (the address the proxy variables name), relays every
// connection to the filtering proxy's Unix socket (bind-mounted in by the backend), and runs the
// real command as its child. When the command exits, so does the bridge, and with it the
// listener: none outlives the run. The bridge enforces nothing; the proxy on the other end of
// the socket decides every connection.
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/post.hpp>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <thread>

#include <fmt/core.h>

#include "bridge_options.hpp"
#include "pmg/executable.hpp"
#include "pmg/process.hpp"
#include "pmg/stream_sockets.hpp"

extern char** environ;

namespace {

constexpr std::size_t bulk_pipe_size = 1 << 20;  // see SocketRelay

void bridge_connection(boost::asio::io_context& io, const std::string& socket_path, pmg::StreamSocket client) {
  auto proxy = std::make_shared<pmg::StreamSocket>(pmg::open_stream_socket(io, AF_UNIX));
  auto waiting = std::make_shared<pmg::StreamSocket>(std::move(client));
  proxy->async_connect(
      boost::asio::generic::stream_protocol::endpoint(boost::asio::local::stream_protocol::endpoint(socket_path)),
      [proxy, waiting, socket_path](const boost::system::error_code& ec) {
        if (ec) {
          // The client sees its connection closed; the message says why.
          fmt::print(stderr, "pmg-netbridge: cannot reach pmg's network proxy at {}: {}\n", socket_path, ec.message());
          return;
        }
        auto relay = std::make_shared<pmg::SocketRelay>(std::move(*waiting), std::move(*proxy), bulk_pipe_size);
        try {
          relay->start({}, nullptr);
        } catch (const pmg::Error& e) {
          fmt::print(stderr, "pmg-netbridge: {}\n", e.what());
        }
      });
}

// The seccomp program bwrap would otherwise install: here it must spare the bridge, which needs
// Unix sockets to reach the proxy, so only the command runs under it.
std::vector<sock_filter> read_seccomp_program(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), {});
  if (!in.good() && !in.eof()) throw pmg::Error("cannot read the seccomp program " + file);
  if (bytes.empty() || bytes.size() % sizeof(sock_filter) != 0 || bytes.size() / sizeof(sock_filter) > BPF_MAXINSNS)
    throw pmg::Error("the seccomp program " + file + " is empty or malformed");
  std::vector<sock_filter> program(bytes.size() / sizeof(sock_filter));
  std::memcpy(program.data(), bytes.data(), bytes.size());
  return program;
}

std::vector<std::string> current_environment() {
  std::vector<std::string> out;
  for (char** e = environ; *e != nullptr; ++e) out.emplace_back(*e);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  // The command runs under the Unix-socket filter and the bridge does not; a command that could
  // ptrace its parent (or open its /proc/PID/mem) would make the bridge connect for it. Not
  // dumpable, the bridge can be traced only with CAP_SYS_PTRACE, which the sandbox drops.
  ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  pmg::netbridge::BridgeOptions options;
  try {
    options = pmg::netbridge::parse_bridge_arguments(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const pmg::Error& e) {
    fmt::print(stderr, "{}\n", e.what());
    return 2;
  }
  std::string& program = options.command.front();
  if (program.find('/') == std::string::npos) {
    const char* path = std::getenv("PATH");
    auto found = pmg::find_executable(program, path ? path : "/usr/bin:/bin", "/proc/self/exe");
    if (!found) {
      fmt::print(stderr, "pmg-netbridge: {} not found on PATH\n", program);
      return 127;
    }
    program = found->string();
  }

  boost::asio::io_context io(1);
  std::shared_ptr<pmg::Listener> listener;
  try {
    listener = std::make_shared<pmg::Listener>(
        pmg::listen_tcp(io, options.listen),
        [&io, &options](pmg::StreamSocket client) { bridge_connection(io, options.socket_path, std::move(client)); });
  } catch (const pmg::Error& e) {
    fmt::print(stderr, "pmg-netbridge: {}\n", e.what());
    return 125;
  }
  listener->start();

  // The relay thread takes no signals, so run_process (on this thread) receives and forwards them.
  sigset_t all, previous;
  sigfillset(&all);
  ::pthread_sigmask(SIG_BLOCK, &all, &previous);
  std::thread loop([&io] { io.run(); });
  ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);

  int status = 0;
  try {
    const std::vector<sock_filter> filter =
        options.seccomp_file.empty() ? std::vector<sock_filter>{} : read_seccomp_program(options.seccomp_file);
    status = pmg::run_process(pmg::ProcessSpec{options.command, current_environment(), {}}, filter);
  } catch (const pmg::Error& e) {
    fmt::print(stderr, "pmg-netbridge: {}\n", e.what());
    status = 127;
  }
  boost::asio::post(io, [&] {
    listener->close();
    io.stop();
  });
  loop.join();
  return status;
}
