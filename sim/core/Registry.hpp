#pragma once
// Registry of named, parameterised plug-ins (placement policies, sharing modes, ...). It is the single
// source of the valid names and their parameter schemas: validation, `gputwin explain policies` and
// error messages all read it, so a name is never listed twice.
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

namespace gtw {

using ParamValue = std::variant<double, bool, std::string>;
using Params = std::map<std::string, ParamValue>;

enum class ParamType { NUMBER, BOOL, STRING };

struct ParamSpec {
  std::string name;
  ParamType type = ParamType::NUMBER;
  ParamValue default_value;
  std::string help;
  double min = -1e300;  // for NUMBER
  double max = 1e300;
  std::vector<std::string> choices;  // for STRING: the accepted values (empty = any)
};

struct PluginInfo {
  std::string name;
  std::string summary;
  std::vector<ParamSpec> params;
};

const char* param_type_name(ParamType t);

/// Params with every declared default filled in (given values win).
Params with_defaults(const PluginInfo& info, const Params& given);
double param_number(const Params& p, const std::string& name);
bool param_bool(const Params& p, const std::string& name);
const std::string& param_string(const Params& p, const std::string& name);

template <class Iface>
class Registry {
 public:
  using Factory = std::function<std::unique_ptr<Iface>(const Params&)>;

  void add(PluginInfo info, Factory factory) {
    const std::string name = info.name;
    if (entries_.count(name)) throw std::logic_error("duplicate registration of '" + name + "'");
    entries_.emplace(name, Entry{std::move(info), std::move(factory)});
  }
  const PluginInfo* find(const std::string& name) const {
    auto it = entries_.find(name);
    return it == entries_.end() ? nullptr : &it->second.info;
  }
  /// Creates the plug-in with defaults filled in; throws std::out_of_range for an unknown name
  /// (validation has already refused unknown names with a located message).
  std::unique_ptr<Iface> create(const std::string& name, const Params& params) const {
    const auto& entry = entries_.at(name);
    return entry.factory(with_defaults(entry.info, params));
  }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& [name, entry] : entries_) out.push_back(name);
    return out;
  }
  std::vector<PluginInfo> list() const {
    std::vector<PluginInfo> out;
    for (const auto& [name, entry] : entries_) out.push_back(entry.info);
    return out;
  }

 private:
  struct Entry {
    PluginInfo info;
    Factory factory;
  };
  std::map<std::string, Entry> entries_;  // ordered: listings are deterministic
};

}  // namespace gtw
