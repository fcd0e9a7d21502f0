#pragma once
// Exit codes of the command-line contract (docs/cli.md) and the exceptions that carry them.
#include <stdexcept>
#include <string>

namespace gtw {

enum ExitCode : int {
  EXIT_OK = 0,             // success and every expectation met
  EXIT_EXPECTATION = 1,    // an expectation or a regression failed
  EXIT_INVALID_INPUT = 2,  // usage, schema or semantic error in the input
  EXIT_INTERNAL = 3,       // internal, runtime or I/O error
  EXIT_NO_GPU = 4,         // `gputwin calibrate` only: no usable GPU, or no calibration kernels built
};

/// Invalid input (exit 2); the message is already formatted for the user.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Runtime or I/O failure (exit 3).
class RuntimeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace gtw
