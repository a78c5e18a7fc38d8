#pragma once
// The audit log: one JSON object per line (Boost.PropertyTree), appended under an exclusive lock
// with a single write, so concurrent runs never interleave or tear a line.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <boost/property_tree/json_parser.hpp>
#include <boost/property_tree/ptree.hpp>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/chrono.h>
#include <fmt/format.h>

#include "pmg/error.hpp"

namespace pmg {

using EventRecord = boost::property_tree::ptree;

// A record with its type and the current UTC time.
inline EventRecord make_event(std::string_view type) {
  EventRecord record;
  auto now = std::chrono::time_point_cast<std::chrono::milliseconds>(std::chrono::system_clock::now());
  record.put("time", fmt::format("{:%Y-%m-%dT%H:%M:%S}Z", now));
  record.put("type", std::string(type));
  return record;
}

// Adds `values` under `key` as a JSON array.
inline void put_list(EventRecord& record, const std::string& key, const std::vector<std::string>& values) {
  EventRecord list;
  for (const auto& v : values) list.push_back({"", EventRecord(v)});
  record.add_child(key, list);
}

class EventLog {
 public:
  explicit EventLog(std::filesystem::path file) : file_(std::move(file)) {}

  const std::filesystem::path& file() const { return file_; }

  // Called before a sandboxed run starts: a run that cannot be audited does not start.
  void check_writable() const { ::close(open_for_append()); }

  void append(const EventRecord& record) const {
    std::ostringstream line;
    boost::property_tree::write_json(line, record, false);  // ends with '\n'
    const std::string text = line.str();
    int fd = open_for_append();
    ::flock(fd, LOCK_EX);
    std::size_t done = 0;
    while (done < text.size()) {
      ssize_t n = ::write(fd, text.data() + done, text.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        int err = errno;
        ::close(fd);
        throw Error(fmt::format("cannot write the event log {}: {}", file_.string(), std::strerror(err)));
      }
      done += static_cast<std::size_t>(n);
    }
    ::close(fd);  // releases the lock
  }

 private:
  int open_for_append() const {
    std::error_code ec;
    std::filesystem::create_directories(file_.parent_path(), ec);
    int fd = ::open(file_.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0)
      throw Error(fmt::format("cannot open the event log {} for appending: {}; make it writable "
                              "(chmod u+w) or point PMG_CONFIG_DIR at a writable directory",
                              file_.string(), std::strerror(errno)));
    return fd;
  }

  std::filesystem::path file_;
};

}  // namespace pmg
