#include "dmo/trace/valgrind_runner.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <thread>

#include "dmo/error.h"

extern char** environ;

namespace dmo {

namespace {

constexpr int kLogFd = 3;  // valgrind's --log-fd inside the child
constexpr size_t kChunk = 1 << 20;
constexpr int kPipeBytes = 1 << 20;
constexpr int kNapMicroseconds = 2000;

// The file a command name runs: itself when it has a slash, else the first
// executable of that name on the PATH.
std::optional<std::string> find_executable(const std::string& name) {
  if (name.empty()) return std::nullopt;
  if (name.find('/') != std::string::npos) {
    if (access(name.c_str(), X_OK) == 0) return name;
    return std::nullopt;
  }
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    std::string dir = dirs.substr(start, end - start);
    std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    struct stat st {};
    if (stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
    start = end + 1;
  }
  return std::nullopt;
}

class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  ~Fd() { reset(); }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  void reset(int fd = -1) {
    if (fd_ >= 0) close(fd_);
    fd_ = fd;
  }

 private:
  int fd_;
};

// Kills and reaps the child unless it was waited for.
class Child {
 public:
  explicit Child(pid_t pid) : pid_(pid) {}
  ~Child() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      int status = 0;
      while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
      }
    }
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  int wait() {
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0) {
      if (errno != EINTR) throw Error(fmt::format("trace: waiting for valgrind failed: {}", std::strerror(errno)));
    }
    pid_ = -1;
    return status;
  }

 private:
  pid_t pid_;
};

class FileActions {
 public:
  FileActions() { posix_spawn_file_actions_init(&actions_); }
  ~FileActions() { posix_spawn_file_actions_destroy(&actions_); }
  FileActions(const FileActions&) = delete;
  FileActions& operator=(const FileActions&) = delete;
  posix_spawn_file_actions_t* get() { return &actions_; }

 private:
  posix_spawn_file_actions_t actions_;
};

std::string describe(const std::vector<std::string>& command) {
  std::string s;
  for (const auto& a : command) s += (s.empty() ? "" : " ") + a;
  return s;
}

void fill_totals(TraceRun& run, LackeyTraceReader& reader) {
  run.layers = reader.layers();
  run.picture = reader.picture();
  run.lines = reader.lines();
  run.memory_events = reader.memory_events();
  run.instructions = reader.instructions();
}

}  // namespace

bool valgrind_available() { return find_executable("valgrind").has_value(); }

TraceRun trace_program(const std::vector<std::string>& command, const TraceRunOptions& options) {
  if (command.empty()) throw Error("trace: no program given (dmo trace -- PROGRAM ARGS...)");
  std::optional<std::string> valgrind = find_executable("valgrind");
  if (!valgrind) {
    throw Error("trace: valgrind is not installed (or not on the PATH); install it with apt-get install valgrind");
  }
  if (!find_executable(command[0])) {
    throw Error(fmt::format("trace: {}: no such program, or it is not executable", command[0]));
  }

  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) throw Error(fmt::format("trace: pipe failed: {}", std::strerror(errno)));
  Fd read_end(pipe_fds[0]);
  Fd write_end(pipe_fds[1]);
  fcntl(read_end.get(), F_SETPIPE_SZ, kPipeBytes);  // best effort: the default 64 KiB also works

  std::vector<std::string> args = {*valgrind, "--tool=lackey", "--trace-mem=yes", fmt::format("--log-fd={}", kLogFd)};
  args.insert(args.end(), command.begin(), command.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  if (write_end.get() == kLogFd) {
    // dup2 onto itself would keep close-on-exec: move the pipe elsewhere.
    int moved = fcntl(write_end.get(), F_DUPFD_CLOEXEC, kLogFd + 1);
    if (moved < 0) throw Error(fmt::format("trace: fcntl failed: {}", std::strerror(errno)));
    write_end.reset(moved);
  }
  FileActions actions;
  // dup2 clears close-on-exec on the copy; the originals close at exec.
  posix_spawn_file_actions_adddup2(actions.get(), write_end.get(), kLogFd);
  if (options.discard_program_output) {
    posix_spawn_file_actions_addopen(actions.get(), STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(actions.get(), STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  } else if (options.program_stdout_to_stderr) {
    posix_spawn_file_actions_adddup2(actions.get(), STDERR_FILENO, STDOUT_FILENO);
  }
  const auto start = std::chrono::steady_clock::now();
  pid_t pid = 0;
  int spawn_error = posix_spawn(&pid, valgrind->c_str(), actions.get(), nullptr, argv.data(), environ);
  if (spawn_error != 0) throw Error(fmt::format("trace: cannot start {}: {}", *valgrind, std::strerror(spawn_error)));
  Child child(pid);
  write_end.reset();  // only the child writes: EOF when it exits

  LackeyTraceReader reader(options.reader);
  TraceRun run;
  std::vector<char> buffer(kChunk);
  for (;;) {
    ssize_t n = read(read_end.get(), buffer.data(), buffer.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error(fmt::format("trace: reading valgrind's log failed: {}", std::strerror(errno)));
    }
    if (n == 0) break;
    run.log_bytes += n;
    reader.feed(std::string_view(buffer.data(), static_cast<size_t>(n)));
    // Valgrind writes one line per write(): after a short read, let the
    // (enlarged) pipe fill for a moment rather than wake for every line.
    if (static_cast<size_t>(n) < kChunk / 8) std::this_thread::sleep_for(std::chrono::microseconds(kNapMicroseconds));
  }
  const int status = child.wait();
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // Valgrind's own account of the run, if it gave one, below our line.
  std::string messages = reader.recent_messages();
  if (!messages.empty()) {
    messages.pop_back();
    messages = fmt::format("\n{}", messages);
  }
  if (WIFSIGNALED(status)) {
    throw Error(fmt::format("trace: '{}' was killed by signal {} ({}) under valgrind{}", describe(command),
                            WTERMSIG(status), strsignal(WTERMSIG(status)), messages));
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
    throw Error(fmt::format("trace: '{}' exited with status {} under valgrind{}", describe(command),
                            WEXITSTATUS(status), messages));
  }
  reader.finish();
  fill_totals(run, reader);
  return run;
}

TraceRun trace_log_file(const std::string& path, const LackeyTraceOptions& options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("{}: cannot open the valgrind log", path));
  const auto start = std::chrono::steady_clock::now();
  LackeyTraceReader reader(options);
  TraceRun run;
  std::vector<char> buffer(kChunk);
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    std::streamsize n = in.gcount();
    if (n <= 0) break;
    run.log_bytes += n;
    reader.feed(std::string_view(buffer.data(), static_cast<size_t>(n)));
  }
  reader.finish();
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  fill_totals(run, reader);
  return run;
}

}  // namespace dmo
