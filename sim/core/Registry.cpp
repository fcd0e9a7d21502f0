#include "Registry.hpp"

namespace gtw {

const char* param_type_name(ParamType t) {
  switch (t) {
    case ParamType::NUMBER:
      return "number";
    case ParamType::BOOL:
      return "bool";
    case ParamType::STRING:
      return "string";
  }
  return "?";
}

Params with_defaults(const PluginInfo& info, const Params& given) {
  Params out = given;
  for (const auto& spec : info.params) out.emplace(spec.name, spec.default_value);
  return out;
}

double param_number(const Params& p, const std::string& name) {
  return std::get<double>(p.at(name));
}
bool param_bool(const Params& p, const std::string& name) {
  return std::get<bool>(p.at(name));
}
const std::string& param_string(const Params& p, const std::string& name) {
  return std::get<std::string>(p.at(name));
}

}  // namespace gtw
