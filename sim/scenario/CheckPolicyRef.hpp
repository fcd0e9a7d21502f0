#pragma once
// Validation of a policy reference against a registry: known name (with did-you-mean), known
// parameters of the declared types and ranges.
#include "Diagnostics.hpp"
#include "Registry.hpp"
#include "Scenario.hpp"

namespace gtw::policy {

void check_policy_ref(const PolicyRef& ref, const std::string& path, const std::string& family,
                      const std::vector<PluginInfo>& available, Diagnostics& diags);

}  // namespace gtw::policy
