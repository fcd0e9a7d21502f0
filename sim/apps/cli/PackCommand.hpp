#pragma once
// gputwin pack: the packing experiment of "Beware of Fragmentation" (ATC'23) on the openb trace.
#include <ostream>

#include "Commands.hpp"

namespace gtw::cli {

Subcommand register_pack_command(CLI::App& app);  // gputwin pack --trace DIR --policy NAME|all (PackCommand.cpp)
/// The packing policies with their help and parameters, for `gputwin explain policies`.
void print_packing_policies(std::ostream& out);

}  // namespace gtw::cli
