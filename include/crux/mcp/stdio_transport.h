// The stdio transport of MCP: crux launches the server as a child process and exchanges
// newline-delimited messages over its stdin and stdout.
//
// Launch. posix_spawnp (PATH is searched for a bare command) with: its own process group, so
// shutdown reaches everything it started; a minimal environment (HOME, LOGNAME, PATH, SHELL,
// TERM and USER from crux's own, skipping values that start with "()", then the configured
// pairs, which override); no inherited descriptors but the three pipes (every descriptor from 3
// up is closed in the child); default signal dispositions and an empty signal mask. The spec is
// taken as given: validating it (the command, interpreter flags, forbidden variables) is the
// caller's job.
//
// Reading. One reader thread polls stdout and stderr. Each stdout line (a trailing "\r" is
// dropped, blank lines are skipped) goes to Handlers::on_line. A line longer than
// StdioOptions::max_line_bytes ends the session with kLimit instead of growing a buffer without
// bound. stderr is free-form logging: its last stderr_tail_bytes are kept for error messages and
// each line may be passed to on_stderr_line. When stdout ends, the reader waits briefly for the
// child to exit, reaps it, and calls Handlers::on_close once with a kUnavailable error that names
// the exit status and the tail of stderr.
//
// Writing. Send() is serialised by a mutex; it appends the newline, never raises SIGPIPE, and
// gives up with kTimeout after write_timeout when the child stops reading.
//
// Shutdown (Close(), also run by the destructor): close stdin, wait close_grace for the child to
// exit, SIGTERM to the process group, wait term_grace, SIGKILL; then what remains of the group
// is killed, the child is reaped (no zombie), and the reader thread is joined.
//
// Thread-safety: Send, Close, StderrTail and the accessors may be called from any thread.
// The handlers run on the reader thread, one at a time; they must not call Close() (it joins
// that thread) and should not block on Send() (a child that is itself blocked writing would
// deadlock against them).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "crux/base/error.h"

namespace crux::mcp {

// What to run. `command` is a path or a name looked up in crux's PATH; `cwd` empty: crux's own.
struct LaunchSpec {
  std::string command;
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> env;
  std::string cwd;
};

struct StdioOptions {
  size_t max_line_bytes = size_t{64} << 20;  // a longer stdout line ends the session (kLimit)
  size_t stderr_tail_bytes = 4096;           // kept for error messages
  std::chrono::milliseconds write_timeout{10000};
  std::chrono::milliseconds close_grace{2000};  // after closing stdin, before SIGTERM
  std::chrono::milliseconds term_grace{2000};   // after SIGTERM, before SIGKILL
  // Called on the reader thread with each stderr line (at most 4 KiB of it); optional.
  std::function<void(std::string_view)> on_stderr_line;
};

class StdioTransport {
 public:
  struct Handlers {
    std::function<void(std::string_view line)> on_line;  // one stdout line, no newline
    std::function<void(const Error& reason)> on_close;   // once, when reading has ended
  };

  // Spawns the child and starts the reader thread. kNotFound when the command or cwd does not
  // exist, kIo for other spawn failures; the message names the command.
  static Expected<std::unique_ptr<StdioTransport>> Start(const LaunchSpec& spec,
                                                         StdioOptions options, Handlers handlers);

  ~StdioTransport();
  StdioTransport(const StdioTransport&) = delete;
  StdioTransport& operator=(const StdioTransport&) = delete;

  // Writes `line` plus "\n". `line` must not contain a newline (the encoders guarantee it).
  // kUnavailable once stdin is closed or the child has gone; kTimeout when it stopped reading.
  Status Send(std::string_view line);

  // Shuts the child down as described above. Idempotent; blocks for at most about
  // close_grace + term_grace plus a moment.
  void Close();

  // The child's pid, which is also its process-group id.
  pid_t pid() const { return pid_; }

  // The last stderr_tail_bytes of stderr (starting at a line boundary when it was cut).
  std::string StderrTail() const;

  // "exited with status 1", "was killed by signal 9 (Killed)", or "is running".
  std::string ExitDescription() const;

 private:
  struct State;
  explicit StdioTransport(std::unique_ptr<State> state);

  std::unique_ptr<State> state_;
  pid_t pid_ = -1;
};

}  // namespace crux::mcp
