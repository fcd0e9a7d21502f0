#pragma once
// gputwin serving: one LLM serving engine alone (models/serving, no SimGrid), and the validation table
// against published serving measurements (docs/validation/serving.md).
#include "Commands.hpp"

namespace gtw::cli {

// gputwin serving --model ID --gpu PROFILE --tp N ... | gputwin serving --validate FILE (ServingCommand.cpp)
Subcommand register_serving_command(CLI::App& app);

}  // namespace gtw::cli
