// Replays inputs through a fuzz target without libFuzzer (the ordinary test build, gcc or clang): every
// argument is a file, or a directory whose regular files (recursively, in name order, dot-files and
// README* skipped) are fed one by one to LLVMFuzzerTestOneInput. A finding shows up as it would under
// libFuzzer: an escaping exception, an abort or a sanitizer report ends the process with a failure;
// the file being replayed is printed first. Like libFuzzer's -timeout and -rss_limit_mb, an input that
// runs longer than GTW_FUZZ_REPLAY_TIMEOUT seconds (default 10) fails with exit 70, and memory is capped
// (4 GiB of address space; under AddressSanitizer, which reserves far more, an RSS limit of 2 GiB) so that
// a runaway allocation fails fast instead of starving the machine. Exit 0 when every input ran, 2 on a
// usage or I/O error.
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

#if defined(__SANITIZE_ADDRESS__)
#define GTW_REPLAY_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GTW_REPLAY_ASAN 1
#endif
#endif

#ifdef GTW_REPLAY_ASAN
// Defaults under ASAN_OPTIONS (which overrides them flag by flag).
extern "C" const char* __asan_default_options() {
  return "hard_rss_limit_mb=2048";
}
#endif

namespace {

namespace fs = std::filesystem;

char g_current[4096];  // the input being replayed, for the timeout message

extern "C" void on_alarm(int) {
  const char head[] = "replay: timeout on ";
  const char tail[] = "\n";
  ssize_t ignored = write(2, head, sizeof head - 1);
  ignored = write(2, g_current, std::strlen(g_current));
  ignored = write(2, tail, sizeof tail - 1);
  (void)ignored;
  _exit(70);
}

bool skipped(const fs::path& p) {
  const std::string name = p.filename().string();
  return name.empty() || name[0] == '.' || name.rfind("README", 0) == 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
    return 2;
  }
#ifndef GTW_REPLAY_ASAN
  const rlim_t cap = rlim_t{4} << 30;
  rlimit as{};
  if (getrlimit(RLIMIT_AS, &as) == 0 && (as.rlim_cur == RLIM_INFINITY || as.rlim_cur > cap)) {
    as.rlim_cur = cap;
    setrlimit(RLIMIT_AS, &as);
  }
#endif
  unsigned timeout_s = 10;
  if (const char* t = std::getenv("GTW_FUZZ_REPLAY_TIMEOUT")) timeout_s = static_cast<unsigned>(std::atoi(t));
  std::signal(SIGALRM, on_alarm);
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    const fs::path arg(argv[i]);
    std::error_code ec;
    if (fs::is_directory(arg, ec)) {
      std::vector<fs::path> found;
      for (auto it = fs::recursive_directory_iterator(arg, ec); !ec && it != fs::recursive_directory_iterator();
           it.increment(ec)) {
        if (it->is_regular_file(ec) && !skipped(it->path())) found.push_back(it->path());
      }
      if (ec) {
        std::fprintf(stderr, "cannot list %s: %s\n", argv[i], ec.message().c_str());
        return 2;
      }
      std::sort(found.begin(), found.end());
      files.insert(files.end(), found.begin(), found.end());
    } else if (fs::is_regular_file(arg, ec)) {
      files.push_back(arg);
    } else {
      std::fprintf(stderr, "no such file or directory: %s\n", argv[i]);
      return 2;
    }
  }
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "cannot read %s\n", f.string().c_str());
      return 2;
    }
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::printf("replay %s (%zu bytes)\n", f.string().c_str(), bytes.size());
    std::fflush(stdout);
    std::snprintf(g_current, sizeof g_current, "%s", f.string().c_str());
    alarm(timeout_s);
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    alarm(0);
  }
  std::printf("replayed %zu input(s)\n", files.size());
  return 0;
}
