#pragma once
// Validation of a policy reference against a registry: known name (with did-you-mean), known
// parameters of the declared types and ranges.
#include <map>
#include <string>
#include <vector>

#include "Diagnostics.hpp"
#include "Registry.hpp"
#include "Scenario.hpp"

namespace gtw::policy {

/// A policy name that was renamed: what it is called now and why.
struct RenamedPolicy {
  std::string now;
  std::string why;
};

void check_policy_ref(const PolicyRef& ref, const std::string& path, const std::string& family,
                      const std::vector<PluginInfo>& available, Diagnostics& diags,
                      const std::map<std::string, RenamedPolicy>& renamed = {});

}  // namespace gtw::policy
