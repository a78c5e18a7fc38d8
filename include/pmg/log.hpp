#pragma once
// Logging: `APP_LOG_LEVEL` (debug, info, warn, error; default warn) selects what is written,
// `APP_LOG_FILE` where (default stderr). Read once from the environment on first use; the host
// may override both with `configure_logging` (--debug).
#include <fmt/core.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <mutex>
#include <string>
#include <string_view>

#include "pmg/error.hpp"

namespace pmg {

enum class LogLevel { debug = 0, info = 1, warn = 2, error = 3 };

inline LogLevel parse_log_level(std::string_view text) {
  if (text == "debug") return LogLevel::debug;
  if (text == "info") return LogLevel::info;
  if (text == "warn" || text == "warning") return LogLevel::warn;
  if (text == "error") return LogLevel::error;
  throw Error(fmt::format("APP_LOG_LEVEL=\"{}\" is not a log level; use debug, info, warn or error",
                          std::string(text)));
}

namespace detail {

struct LogSink {
  std::mutex mutex;
  LogLevel level = LogLevel::warn;
  std::FILE* file = stderr;
  bool configured = false;

  void configure_from_environment() {
    configured = true;
    if (const char* lvl = std::getenv("APP_LOG_LEVEL"); lvl != nullptr && *lvl != '\0') {
      try {
        level = parse_log_level(lvl);
      } catch (const Error& e) {
        fmt::print(stderr, "pmg: warning: {}\n", e.what());
      }
    }
    if (const char* path = std::getenv("APP_LOG_FILE"); path != nullptr && *path != '\0') {
      if (std::FILE* f = std::fopen(path, "ae")) {
        file = f;
      } else {
        fmt::print(stderr, "pmg: warning: cannot open APP_LOG_FILE={}; logging to stderr\n", path);
      }
    }
  }
};

inline LogSink& log_sink() {
  static LogSink sink;
  return sink;
}

inline void write_log(LogLevel level, std::string_view message) {
  static constexpr const char* names[] = {"debug", "info", "warn", "error"};
  LogSink& sink = log_sink();
  std::lock_guard lock(sink.mutex);
  if (!sink.configured) sink.configure_from_environment();
  if (level < sink.level) return;
  if (sink.file == stderr) {
    fmt::print(sink.file, "pmg: {}: {}\n", names[static_cast<int>(level)], message);
  } else {
    std::time_t now = std::time(nullptr);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    fmt::print(sink.file, "{} [{}] pmg[{}]: {}\n", stamp, names[static_cast<int>(level)], ::getpid(),
               message);
  }
  std::fflush(sink.file);
}

}  // namespace detail

// Overrides the environment's level (the host's --debug).
inline void set_log_level(LogLevel level) {
  detail::LogSink& sink = detail::log_sink();
  std::lock_guard lock(sink.mutex);
  if (!sink.configured) sink.configure_from_environment();
  sink.level = level;
}

inline bool log_enabled(LogLevel level) {
  detail::LogSink& sink = detail::log_sink();
  std::lock_guard lock(sink.mutex);
  if (!sink.configured) sink.configure_from_environment();
  return level >= sink.level;
}

template <class... Args>
void log(LogLevel level, fmt::format_string<Args...> format, Args&&... args) {
  if (!log_enabled(level)) return;
  detail::write_log(level, fmt::format(format, std::forward<Args>(args)...));
}

template <class... Args>
void log_debug(fmt::format_string<Args...> format, Args&&... args) {
  log(LogLevel::debug, format, std::forward<Args>(args)...);
}
template <class... Args>
void log_info(fmt::format_string<Args...> format, Args&&... args) {
  log(LogLevel::info, format, std::forward<Args>(args)...);
}
template <class... Args>
void log_warn(fmt::format_string<Args...> format, Args&&... args) {
  log(LogLevel::warn, format, std::forward<Args>(args)...);
}
template <class... Args>
void log_error(fmt::format_string<Args...> format, Args&&... args) {
  log(LogLevel::error, format, std::forward<Args>(args)...);
}

}  // namespace pmg
