#include "crux/mcp/stdio_transport.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>

extern char** environ;

namespace crux::mcp {
namespace {

using Clock = std::chrono::steady_clock;

// The variables of crux's own environment a server inherits (as the reference client does).
constexpr std::string_view kInheritedVariables[] = {"HOME",  "LOGNAME", "PATH",
                                                    "SHELL", "TERM",    "USER"};
constexpr size_t kReadChunk = 64 * 1024;
constexpr size_t kMaxStderrLine = 4096;

std::string ErrnoText(int error) {
  return std::strerror(error);
}

void CloseFd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

// Sets `name`=`value` in `env` (a list of "NAME=value"), replacing an earlier entry.
void SetVariable(std::vector<std::string>& env, std::string_view name, std::string_view value) {
  std::string entry(name);
  entry += '=';
  for (std::string& existing : env) {
    if (existing.starts_with(entry)) {
      existing = entry.append(value);
      return;
    }
  }
  env.push_back(entry.append(value));
}

std::vector<std::string> BuildEnvironment(const LaunchSpec& spec) {
  std::vector<std::string> env;
  for (std::string_view name : kInheritedVariables) {
    const char* value = std::getenv(std::string(name).c_str());
    if (value == nullptr || std::string_view(value).starts_with("()")) continue;
    SetVariable(env, name, value);
  }
  for (const auto& [name, value] : spec.env)
    SetVariable(env, name, value);
  return env;
}

std::vector<char*> PointerArray(std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (std::string& s : strings)
    out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// Blocks SIGPIPE on this thread for its lifetime; a SIGPIPE raised meanwhile (a write to a
// pipe whose reader has gone) is consumed instead of killing the process.
class ScopedSigpipeBlock {
 public:
  ScopedSigpipeBlock() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    sigset_t pending;
    sigpending(&pending);
    was_pending_ = sigismember(&pending, SIGPIPE) == 1;
    pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
  }
  ~ScopedSigpipeBlock() {
    if (raised_ && !was_pending_) {
      const timespec zero{0, 0};
      while (sigtimedwait(&pipe_, nullptr, &zero) < 0 && errno == EINTR) {
      }
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  void Raised() { raised_ = true; }

 private:
  sigset_t pipe_;
  sigset_t old_;
  bool was_pending_ = false;
  bool raised_ = false;
};

// Pipe ends: [0] read, [1] write; both close-on-exec.
struct Pipe {
  int fd[2] = {-1, -1};
  ~Pipe() {
    CloseFd(fd[0]);
    CloseFd(fd[1]);
  }
  bool Open() { return ::pipe2(fd, O_CLOEXEC) == 0; }
};

// "exited with status 1", "was killed by signal 9 (Killed)"; from waitid's si_code and si_status.
std::string DescribeExit(int kind, int code) {
  if (kind == CLD_EXITED) return "exited with status " + std::to_string(code);
  if (kind != CLD_KILLED && kind != CLD_DUMPED) return "has exited";
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 32)
  const char* name = ::sigdescr_np(code);  // thread-safe, unlike strsignal
#else
  const char* name = nullptr;
#endif
  return "was killed by signal " + std::to_string(code) + " (" +
         (name != nullptr ? name : "unknown") + ")";
}

struct Spawned {
  pid_t pid = -1;
  int stdin_fd = -1;
  int stdout_fd = -1;
  int stderr_fd = -1;
};

Error SpawnError(const LaunchSpec& spec, int error) {
  const ErrorCode code = error == ENOENT ? ErrorCode::kNotFound : ErrorCode::kIo;
  return Error(code, "cannot start '" + spec.command + "': " + ErrnoText(error));
}

// Runs posix_spawnp with the attributes the file comment lists; `child` are the child's ends.
int SpawnWith(const LaunchSpec& spec, const int child[3], pid_t& pid) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  for (int target = 0; target < 3; ++target) {
    posix_spawn_file_actions_adddup2(&actions, child[target], target);
  }
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 34)
  posix_spawn_file_actions_addclosefrom_np(&actions, 3);  // and O_CLOEXEC everywhere else
#endif
  if (!spec.cwd.empty()) posix_spawn_file_actions_addchdir_np(&actions, spec.cwd.c_str());
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  posix_spawnattr_setpgroup(&attr, 0);
  sigset_t signals;
  sigemptyset(&signals);
  posix_spawnattr_setsigmask(&attr, &signals);
  sigfillset(&signals);
  sigdelset(&signals, SIGKILL);
  sigdelset(&signals, SIGSTOP);
  posix_spawnattr_setsigdefault(&attr, &signals);

  std::vector<std::string> argv_strings{spec.command};
  argv_strings.insert(argv_strings.end(), spec.args.begin(), spec.args.end());
  std::vector<std::string> env_strings = BuildEnvironment(spec);
  std::vector<char*> argv = PointerArray(argv_strings);
  std::vector<char*> envp = PointerArray(env_strings);
  const int error =
      posix_spawnp(&pid, spec.command.c_str(), &actions, &attr, argv.data(), envp.data());
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&actions);
  return error;
}

Expected<Spawned> Spawn(const LaunchSpec& spec) {
  if (spec.command.empty()) return Error(ErrorCode::kInvalidArgument, "empty command");
  if (!spec.cwd.empty()) {
    struct stat info {};
    if (::stat(spec.cwd.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) {
      return Error(ErrorCode::kNotFound, "cannot start '" + spec.command + "': cwd '" + spec.cwd +
                                             "' is not a directory");
    }
  }
  Pipe in, out, err;
  if (!in.Open() || !out.Open() || !err.Open()) return SpawnError(spec, errno);
  const int child[3] = {in.fd[0], out.fd[1], err.fd[1]};
  Spawned spawned;
  if (const int error = SpawnWith(spec, child, spawned.pid); error != 0) {
    return SpawnError(spec, error);
  }
  // The parent keeps stdin's write end (non-blocking: Send bounds its wait), stdout's and
  // stderr's read ends.
  ::fcntl(in.fd[1], F_SETFL, ::fcntl(in.fd[1], F_GETFL) | O_NONBLOCK);
  std::swap(spawned.stdin_fd, in.fd[1]);
  std::swap(spawned.stdout_fd, out.fd[0]);
  std::swap(spawned.stderr_fd, err.fd[0]);
  return spawned;
}

}  // namespace

struct StdioTransport::State {
  StdioOptions options;
  Handlers handlers;
  std::string command;
  pid_t pid = -1;
  int stdout_fd = -1;
  int stderr_fd = -1;
  int wake_fd[2] = {-1, -1};  // Close() writes a byte to end the reader's poll
  std::thread reader;

  std::mutex write_mu;  // serialises Send(); guards stdin_fd
  int stdin_fd = -1;
  std::atomic<bool> closing{false};

  std::mutex close_mu;  // Close() runs once
  bool closed = false;

  mutable std::mutex proc_mu;  // guards the child's state below
  bool exited = false;         // it has exited (a zombie until reaped)
  bool reaped = false;         // waited for: its pid (and group id) may be reused
  int exit_code = 0;           // CLD_EXITED: status; CLD_KILLED/CLD_DUMPED: signal
  int exit_kind = 0;           // siginfo si_code

  mutable std::mutex stderr_mu;
  std::string stderr_tail;  // bounded to 2 * stderr_tail_bytes
  std::string stderr_line;  // the unfinished stderr line (reader thread only)

  // Notes whether the child has exited, without reaping it.
  bool CheckExited() {
    std::lock_guard lock(proc_mu);
    if (exited) return true;
    siginfo_t info{};
    const int result = ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT);
    if (result == 0 && info.si_pid == pid) {
      exited = true;
      exit_kind = info.si_code;
      exit_code = info.si_status;
    } else if (result != 0 && errno == ECHILD) {
      exited = true;  // someone else reaped it (a SIGCHLD handler set to SIG_IGN)
      reaped = true;
    }
    return exited;
  }

  bool AwaitExit(Clock::duration within) {
    const auto deadline = Clock::now() + within;
    while (!CheckExited()) {
      if (Clock::now() >= deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return true;
  }

  // Signals the whole group while the leader is not reaped (so the id cannot be reused).
  void SignalGroup(int signal) {
    std::lock_guard lock(proc_mu);
    if (!reaped) ::kill(-pid, signal);
  }

  // After the leader exited: kills what is left of its group, then reaps the leader.
  void Reap() {
    std::lock_guard lock(proc_mu);
    if (!exited || reaped) return;
    ::kill(-pid, SIGKILL);
    while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
    reaped = true;
  }

  std::string Tail() const {
    std::lock_guard lock(stderr_mu);
    std::string_view tail = stderr_tail;
    if (tail.size() > options.stderr_tail_bytes) {
      tail.remove_prefix(tail.size() - options.stderr_tail_bytes);
      if (const size_t newline = tail.find('\n'); newline != tail.npos) {
        tail.remove_prefix(newline + 1);
      }
    }
    while (!tail.empty() && (tail.back() == '\n' || tail.back() == '\r' || tail.back() == ' ')) {
      tail.remove_suffix(1);
    }
    return std::string(tail);
  }

  void AppendStderr(std::string_view data);
  bool ReadStderr();
  void DrainStderr(Clock::duration within);
  Status ReadStdout(std::string& buffer);
  Error EndOfStream();
  void ReaderLoop();
};

void StdioTransport::State::AppendStderr(std::string_view data) {
  {
    std::lock_guard lock(stderr_mu);
    stderr_tail.append(data);
    if (stderr_tail.size() > 2 * options.stderr_tail_bytes) {
      stderr_tail.erase(0, stderr_tail.size() - options.stderr_tail_bytes);
    }
  }
  if (!options.on_stderr_line) return;
  for (char c : data) {
    if (c == '\n' || stderr_line.size() >= kMaxStderrLine) {
      if (!stderr_line.empty() && stderr_line.back() == '\r') stderr_line.pop_back();
      options.on_stderr_line(stderr_line);
      stderr_line.clear();
      if (c == '\n') continue;
    }
    stderr_line.push_back(c);
  }
}

// Reads what stderr has; false at its end.
bool StdioTransport::State::ReadStderr() {
  char chunk[4096];
  const ssize_t n = ::read(stderr_fd, chunk, sizeof chunk);
  if (n > 0) {
    AppendStderr(std::string_view(chunk, static_cast<size_t>(n)));
    return true;
  }
  return n < 0 && (errno == EINTR || errno == EAGAIN);
}

void StdioTransport::State::DrainStderr(Clock::duration within) {
  const auto deadline = Clock::now() + within;
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return;
    pollfd fd{stderr_fd, POLLIN, 0};
    const int ready = ::poll(&fd, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0 || !ReadStderr()) return;
  }
}

// Reads a chunk of stdout into `buffer` and hands out its complete lines. kUnavailable at the
// end of the stream, kLimit for an overlong line.
Status StdioTransport::State::ReadStdout(std::string& buffer) {
  const size_t old_size = buffer.size();
  buffer.resize(old_size + kReadChunk);
  const ssize_t n = ::read(stdout_fd, buffer.data() + old_size, kReadChunk);
  buffer.resize(old_size + static_cast<size_t>(n > 0 ? n : 0));
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return {};
  if (n <= 0) return Error(ErrorCode::kUnavailable, "end of stdout");
  size_t start = 0;
  size_t scan = old_size;
  while (const void* found = std::memchr(buffer.data() + scan, '\n', buffer.size() - scan)) {
    const size_t end = static_cast<size_t>(static_cast<const char*>(found) - buffer.data());
    std::string_view line(buffer.data() + start, end - start);
    if (line.ends_with('\r')) line.remove_suffix(1);
    if (!line.empty()) handlers.on_line(line);
    start = scan = end + 1;
  }
  buffer.erase(0, start);
  if (buffer.size() > options.max_line_bytes) {
    return Error(ErrorCode::kLimit, "the MCP server sent a stdout line longer than " +
                                        std::to_string(options.max_line_bytes) + " bytes");
  }
  if (buffer.capacity() > (size_t{1} << 20) && buffer.size() < kReadChunk) buffer.shrink_to_fit();
  return {};
}

// After stdout ended: collects the rest of stderr and the exit status.
Error StdioTransport::State::EndOfStream() {
  DrainStderr(std::chrono::milliseconds(500));
  const bool gone = AwaitExit(std::chrono::seconds(1));
  if (gone) Reap();
  std::string message = "the process ";
  if (gone) {
    std::lock_guard lock(proc_mu);
    message += DescribeExit(exit_kind, exit_code);
  } else {
    message += "closed its stdout";
  }
  return Error(ErrorCode::kUnavailable, message);
}

void StdioTransport::State::ReaderLoop() {
  std::string buffer;
  bool stderr_open = true;
  Error reason(ErrorCode::kUnavailable, "the transport was closed");
  for (;;) {
    pollfd fds[3] = {
        {stdout_fd, POLLIN, 0}, {stderr_open ? stderr_fd : -1, POLLIN, 0}, {wake_fd[0], POLLIN, 0}};
    if (::poll(fds, 3, -1) < 0) {
      if (errno == EINTR) continue;
      reason = Error(ErrorCode::kIo, "poll failed: " + ErrnoText(errno));
      break;
    }
    if (fds[2].revents != 0) {
      if (handlers.on_close) handlers.on_close(reason);
      return;
    }
    if (fds[1].revents != 0) stderr_open = ReadStderr();
    if (fds[0].revents == 0) continue;
    Status read = ReadStdout(buffer);
    if (read.ok()) continue;
    if (read.error().code() == ErrorCode::kLimit) {
      SignalGroup(SIGKILL);  // the framing is lost: nothing more from it can be trusted
      reason = read.error();
    } else {
      reason = EndOfStream();
    }
    break;
  }
  if (std::string tail = Tail(); !tail.empty()) {
    reason = Error(reason.code(), reason.message() + "; stderr: " + tail);
  }
  if (handlers.on_close) handlers.on_close(reason);
}

StdioTransport::StdioTransport(std::unique_ptr<State> state)
    : state_(std::move(state)), pid_(state_->pid) {}

Expected<std::unique_ptr<StdioTransport>> StdioTransport::Start(const LaunchSpec& spec,
                                                                StdioOptions options,
                                                                Handlers handlers) {
  auto state = std::make_unique<State>();
  if (::pipe2(state->wake_fd, O_CLOEXEC | O_NONBLOCK) != 0) {
    return Error(ErrorCode::kIo, "pipe: " + ErrnoText(errno));
  }
  auto spawned = Spawn(spec);
  if (!spawned.ok()) {
    CloseFd(state->wake_fd[0]);
    CloseFd(state->wake_fd[1]);
    return spawned.error();
  }
  state->options = std::move(options);
  state->handlers = std::move(handlers);
  state->command = spec.command;
  state->pid = spawned->pid;
  state->stdin_fd = spawned->stdin_fd;
  state->stdout_fd = spawned->stdout_fd;
  state->stderr_fd = spawned->stderr_fd;
  State* raw = state.get();
  state->reader = std::thread([raw] { raw->ReaderLoop(); });
  return std::unique_ptr<StdioTransport>(new StdioTransport(std::move(state)));
}

StdioTransport::~StdioTransport() {
  Close();
}

Status StdioTransport::Send(std::string_view line) {
  State& s = *state_;
  std::lock_guard lock(s.write_mu);
  if (s.stdin_fd < 0 || s.closing) return Error(ErrorCode::kUnavailable, "stdin is closed");
  std::string data;
  data.reserve(line.size() + 1);
  data.append(line).push_back('\n');
  ScopedSigpipeBlock sigpipe;
  const auto deadline = Clock::now() + s.options.write_timeout;
  for (size_t done = 0; done < data.size();) {
    const ssize_t n = ::write(s.stdin_fd, data.data() + done, data.size() - done);
    if (n > 0) {
      done += static_cast<size_t>(n);
    } else if (n < 0 && errno == EAGAIN) {
      if (s.closing) return Error(ErrorCode::kUnavailable, "the transport is closing");
      if (Clock::now() >= deadline) {
        return Error(ErrorCode::kTimeout, "the MCP server stopped reading its stdin");
      }
      pollfd fd{s.stdin_fd, POLLOUT, 0};
      ::poll(&fd, 1, 50);
    } else if (n < 0 && errno != EINTR) {
      if (errno == EPIPE) sigpipe.Raised();
      return Error(errno == EPIPE ? ErrorCode::kUnavailable : ErrorCode::kIo,
                   "writing to the MCP server's stdin: " + ErrnoText(errno));
    }
  }
  return {};
}

void StdioTransport::Close() {
  State& s = *state_;
  std::lock_guard close_lock(s.close_mu);
  if (s.closed) return;
  s.closed = true;
  s.closing = true;
  {
    std::lock_guard lock(s.write_mu);
    CloseFd(s.stdin_fd);
  }
  if (!s.AwaitExit(s.options.close_grace)) {
    s.SignalGroup(SIGTERM);
    if (!s.AwaitExit(s.options.term_grace)) {
      s.SignalGroup(SIGKILL);
      s.AwaitExit(std::chrono::seconds(5));
    }
  }
  s.Reap();
  const char byte = 1;
  [[maybe_unused]] const ssize_t n = ::write(s.wake_fd[1], &byte, 1);
  if (s.reader.joinable()) s.reader.join();
  CloseFd(s.stdout_fd);
  CloseFd(s.stderr_fd);
  CloseFd(s.wake_fd[0]);
  CloseFd(s.wake_fd[1]);
}

std::string StdioTransport::StderrTail() const {
  return state_->Tail();
}

std::string StdioTransport::ExitDescription() const {
  const State& s = *state_;
  std::lock_guard lock(s.proc_mu);
  return s.exited ? DescribeExit(s.exit_kind, s.exit_code) : "is running";
}

}  // namespace crux::mcp
