// gputwin import-topo FILE: reads a saved `nvidia-smi topo -m` (and optionally `nvidia-smi mig -lgi`)
// and prints the node graph gputwin builds from it, plus the scenario snippet that uses it.
#include <iostream>
#include <memory>

#include "Commands.hpp"
#include "Errors.hpp"
#include "NvidiaSmi.hpp"
#include "Topology.hpp"

namespace gtw::cli {

Subcommand register_import_topo_command(CLI::App& app) {
  struct Options {
    std::string file, gpu = "H100-80GB-SXM", mig, lci;
  };
  auto opts = std::make_shared<Options>();
  auto* cmd = app.add_subcommand(
      "import-topo", "Build a node's twin from saved `nvidia-smi topo -m` (and `nvidia-smi mig -lgi` / `-lci`) output");
  cmd->add_option("file", opts->file, "Saved output of `nvidia-smi topo -m`")->required();
  cmd->add_option("--gpu", opts->gpu, "Hardware profile of the GPUs (default H100-80GB-SXM)");
  cmd->add_option("--mig", opts->mig, "Saved output of `nvidia-smi mig -lgi`");
  cmd->add_option("--lci", opts->lci, "Saved output of `nvidia-smi mig -lci` (checked against --mig)")
      ->needs(cmd->get_option("--mig"));
  return {cmd, [opts]() {
            Diagnostics diags;
            const auto text = fabric::read_saved_output(opts->file, diags, {}, {});
            if (!text) {
              std::cerr << diags.format_all();
              return EXIT_INVALID_INPUT;
            }
            auto topo = fabric::parse_topo(*text, opts->file, diags);
            HardwareProfile profile;
            load_profile(opts->gpu, SourceLoc{"--gpu", 0, 0}, "--gpu", profile, diags);
            std::map<int, std::vector<std::string>> layouts;
            if (!opts->mig.empty()) {
              const auto mig = fabric::read_saved_output(opts->mig, diags, SourceLoc{"--mig", 0, 0}, {});
              if (!mig) {
                std::cerr << diags.format_all();
                return EXIT_INVALID_INPUT;
              }
              auto gis = fabric::parse_mig_lgi(*mig, opts->mig, diags);
              if (gis) layouts = fabric::mig_layouts_by_gpu(*gis);
              std::optional<std::string> lci;
              if (!opts->lci.empty()) {
                lci = fabric::read_saved_output(opts->lci, diags, SourceLoc{"--lci", 0, 0}, {});
                if (!lci) {
                  std::cerr << diags.format_all();
                  return EXIT_INVALID_INPUT;
                }
              }
              if (gis && !opts->lci.empty()) {
                if (auto cis = fabric::parse_mig_lci(*lci, opts->lci, diags)) {
                  const MigGeometry no_mig;
                  const auto check = fabric::check_compute_instances(*gis, *cis, profile.mig ? *profile.mig : no_mig);
                  for (const auto& e : check.errors) diags.error(SourceLoc{opts->lci, e.line, 1}, "", e.message);
                  for (const auto& n : check.notes) std::cerr << "gputwin: warning: " << opts->lci << ": " << n << "\n";
                }
              }
            }
            if (diags.has_errors() || !topo) {
              std::cerr << diags.format_all();
              return EXIT_INVALID_INPUT;
            }
            fabric::NodeGraph node;
            for (const auto& w : fabric::node_graph_from_topo(*topo, profile, NodeTopologySpec{}, node))
              std::cerr << "gputwin: warning: " << opts->file << ": " << w << "\n";
            node.mig_layouts = layouts;
            std::cout << fabric::describe(node);
            std::cout << "\nIn a scenario:\n  nodePools:\n    - name: twin\n      count: 1\n      gpu: " << opts->gpu
                      << "\n      gpusPerNode: " << node.gpus.size()
                      << "\n      topology: {fromNvidiaSmi: " << opts->file
                      << (opts->mig.empty() ? "" : ", mig: " + opts->mig)
                      << (opts->lci.empty() ? "" : ", migComputeInstances: " + opts->lci) << "}\n";
            if (!layouts.empty()) std::cout << "      sharing: {mode: mig}\n";
            return EXIT_OK;
          }};
}

}  // namespace gtw::cli
