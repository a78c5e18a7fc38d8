// pmg_bench_bubblewrap: the bubblewrap backend's costs (not a test; CTest does not run it).
//
//   1. Start overhead: BubblewrapBackend::launch of /bin/true under the built-in npm-restrictive
//      profile, against bwrap started directly with the same arguments on its command line (what
//      a user would write by hand). Median of N runs each, interleaved.
//   2. Translation: plan_mounts for a generated project of 100 000 files in 20 000 directories
//      (a node_modules tree with a few .env files in it), under npm-restrictive and npx (whose
//      writable project needs the rename protection): median time, mount operations, arguments.
//
// Usage: pmg_bench_bubblewrap [runs=30]
#include <algorithm>
#include <dirent.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "availability.hpp"
#include "bubblewrap_backend.hpp"
#include "mount_plan.hpp"
#include "pmg/fs_view.hpp"
#include "pmg/process.hpp"
#include "pmg/profile_registry.hpp"
#include "support/sandbox_fixture.hpp"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using namespace pmg;
using namespace pmg::bubblewrap;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// CPU time of this process (user + system), which a loaded machine does not inflate the way it
// inflates wall time.
double cpu_ms() {
  rusage r{};
  ::getrusage(RUSAGE_SELF, &r);
  return (r.ru_utime.tv_sec + r.ru_stime.tv_sec) * 1e3 + (r.ru_utime.tv_usec + r.ru_stime.tv_usec) / 1e3;
}

// The least any translation must pay: one opendir/readdir pass over every directory, nothing else.
std::size_t bare_walk(const std::string& dir) {
  std::size_t entries = 0;
  DIR* handle = ::opendir(dir.c_str());
  if (handle == nullptr) return 0;
  while (const dirent* e = ::readdir(handle)) {
    const std::string_view name = e->d_name;
    if (name == "." || name == "..") continue;
    ++entries;
    if (e->d_type == DT_DIR) entries += bare_walk(dir + "/" + e->d_name);
  }
  ::closedir(handle);
  return entries;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

std::string path_env() {
  const char* p = std::getenv("PATH");
  return p ? p : "/usr/bin:/bin";
}

// 1000 packages of 20 directories (the package, lib/, lib/d1 .. lib/d18) with 5 files each:
// 20 000 directories, 100 000 files, and a .env in every 25th package (40 in all).
void generate_project(const fs::path& cwd) {
  test_support::write_file(cwd / "package.json", "{\"name\": \"bench\"}\n");
  test_support::write_file(cwd / ".git/HEAD", "ref: refs/heads/main\n");
  for (int p = 0; p < 1000; ++p) {
    const fs::path pkg = cwd / "node_modules" / fmt::format("pkg{:04}", p);
    std::vector<fs::path> dirs{pkg, pkg / "lib"};
    for (int d = 1; d <= 18; ++d) dirs.push_back(pkg / "lib" / fmt::format("d{}", d));
    for (const fs::path& dir : dirs) {
      fs::create_directories(dir);
      for (int f = 0; f < 5; ++f) std::ofstream(dir / fmt::format("f{}.js", f)) << "x";
    }
    if (p % 25 == 0) std::ofstream(pkg / "lib/d3/.env") << "SECRET-bench";
  }
}

void bench_start_overhead(int runs) {
  const test_support::StagingDir stage("bench-bwrap-start");
  const test_support::FakeHome home = test_support::FakeHome::create(stage.path(), std::nullopt);
  LaunchRequest request;
  request.policy = ProfileRegistry::builtin_only().resolve("npm-restrictive");
  request.context = Context{home.home.string(), home.project.string(), home.tmp.string(), ::getuid(), ::getgid()};
  request.command = {"/bin/true"};
  request.environment = {"PATH=/usr/bin:/bin", "HOME=" + home.home.string()};
  const BubblewrapBackend backend;

  auto start = Clock::now();
  const Availability availability = probe_bubblewrap(path_env(), ::geteuid() == 0);
  const double probe_ms = ms_since(start);
  if (!availability.available) {
    fmt::print(stderr, "bubblewrap unavailable: {} ({})\n", availability.reason, availability.fix);
    std::exit(1);
  }
  backend.probe();  // cached for the process, as in a real run after the host's own check

  // The hand-written call: the same arguments, on bwrap's command line.
  ProcessSpec direct;
  direct.argv = {*find_bwrap(path_env())};
  MountPlan plan = plan_mounts(request.policy, request.context, RealFs{});
  // What launch creates before a run (cache directories, lock files) must exist for a
  // hand-written call; with it in place both runs mount exactly the same.
  for (const std::string& dir : plan.create_before_run) fs::create_directories(dir);
  for (const std::string& file : plan.create_files_before_run) std::ofstream(file) << "{}\n";
  plan = plan_mounts(request.policy, request.context, RealFs{});
  for (const std::string& a : render_arguments(plan)) direct.argv.push_back(a);
  direct.argv.push_back("--");
  direct.argv.push_back("/bin/true");
  direct.environment = request.environment;

  std::vector<double> launched, by_hand;
  for (int i = 0; i < runs + 2; ++i) {  // two warm-up rounds
    start = Clock::now();
    if (backend.launch(request) != 0) throw Error("launch of /bin/true failed");
    const double a = ms_since(start);
    start = Clock::now();
    if (run_process(direct) != 0) throw Error("bwrap /bin/true failed");
    const double b = ms_since(start);
    if (i >= 2) {
      launched.push_back(a);
      by_hand.push_back(b);
    }
  }
  const double ml = median(launched), mh = median(by_hand);
  fmt::print("start overhead (npm-restrictive, /bin/true, median of {} runs, {} mount ops):\n", runs,
             plan.mounts.size());
  fmt::print("  BubblewrapBackend::launch   {:8.2f} ms\n", ml);
  fmt::print("  hand-written bwrap          {:8.2f} ms\n", mh);
  fmt::print("  ratio                       {:8.2f}x   (target <= 1.25x)\n", ml / mh);
  fmt::print("  probe (once per process)    {:8.2f} ms\n", probe_ms);
}

void bench_translation(int runs) {
  const test_support::StagingDir stage("bench-bwrap-tree");
  const test_support::FakeHome home = test_support::FakeHome::create(stage.path(), std::nullopt);
  const fs::path cwd = home.home / "big";
  auto start = Clock::now();
  generate_project(cwd);
  fmt::print("\ngenerated {} in {:.1f} s\n", cwd.string(), ms_since(start) / 1000);
  const Context ctx{home.home.string(), cwd.string(), home.tmp.string(), ::getuid(), ::getgid()};
  std::vector<double> floor_wall, floor_cpu;
  std::size_t entries = 0;
  for (int i = 0; i < runs + 1; ++i) {
    start = Clock::now();
    const double cpu = cpu_ms();
    entries = bare_walk(cwd.string());
    if (i > 0) {
      floor_wall.push_back(ms_since(start));
      floor_cpu.push_back(cpu_ms() - cpu);
    }
  }
  fmt::print("floor: a bare readdir walk of the tree ({} entries)  {:8.2f} ms wall {:8.2f} ms CPU\n", entries,
             median(floor_wall), median(floor_cpu));
  for (const char* profile : {"npm-restrictive", "npx"}) {
    const Policy policy = ProfileRegistry::builtin_only().resolve(profile);
    std::vector<double> times, cpu_times;
    MountPlan plan;
    for (int i = 0; i < runs + 1; ++i) {  // one warm-up (dentry cache)
      start = Clock::now();
      const double cpu = cpu_ms();
      plan = plan_mounts(policy, ctx, RealFs{});
      if (i > 0) {
        times.push_back(ms_since(start));
        cpu_times.push_back(cpu_ms() - cpu);
      }
    }
    std::size_t bytes = 0;
    const std::vector<std::string> args = render_arguments(plan);
    for (const std::string& a : args) bytes += a.size() + 1;
    fmt::print("translation, {} over 100 000 files / 20 000 directories (median of {}):\n", profile, runs);
    fmt::print("  plan_mounts                 {:8.2f} ms wall {:8.2f} ms CPU  (target <= 50 ms)\n", median(times),
               median(cpu_times));
    fmt::print("  mount operations            {:8}      (target <= 2000)\n", plan.mounts.size());
    fmt::print("  bwrap arguments             {:8} ({} bytes)\n", args.size(), bytes);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::atoi(argv[1]) : 30;
  try {
    bench_start_overhead(runs);
    bench_translation(std::max(5, runs / 3));
  } catch (const std::exception& e) {
    fmt::print(stderr, "pmg_bench_bubblewrap: {}\n", e.what());
    return 1;
  }
}
