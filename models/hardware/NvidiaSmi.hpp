#pragma once
// Readers for the text nvidia-smi prints, so a user builds the twin of a node they have:
// `nvidia-smi topo -m` (the connection matrix between GPUs and NICs) and `nvidia-smi mig -lgi` /
// `nvidia-smi mig -lci` (GPU and compute instances). Samples in tests/fixtures/nvidia-smi/.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "Diagnostics.hpp"
#include "MigGeometry.hpp"

namespace gtw::fabric {

/// Reads a saved nvidia-smi output whole (bytes as saved); false when the file cannot be opened.
/// The text of a saved listing: a regular file of at most 1 MiB of UTF-8 text (sim/core/InputFile);
/// otherwise an error at `from` (the field that named the file) and nullopt.
std::optional<std::string> read_saved_output(const std::string& file, Diagnostics& diags, const SourceLoc& from,
                                             const std::string& field);

/// `nvidia-smi topo -m`: devices (GPU0.., NIC0..) and the matrix of their connections
/// (X, NV#, PIX, PXB, PHB, NODE, SYS; SOC is read as SYS).
struct SmiTopo {
  std::vector<std::string> devices;
  std::vector<std::vector<std::string>> matrix;  // [row][column], "X" on the diagonal
  std::vector<std::string> cpu_affinity;         // per device row ("" when not printed)
  std::vector<std::string> numa_affinity;        // per device row ("N/A" or a number)
  std::vector<std::string> legend_names;         // per device: the NIC Legend's name (mlx5_0), "" when none
  /// The device's own name: the NIC Legend's (mlx5_0) when printed, else the column label (NIC0, GPU0).
  std::string device_name(size_t i) const;
  bool is_gpu(size_t i) const { return devices[i].rfind("GPU", 0) == 0; }
  /// NVLink count between two devices (NV18 -> 18), 0 when not NVLink.
  int nvlinks(size_t a, size_t b) const;
};

/// Parses the matrix; errors at file:line:col. nullopt when it is not a topology matrix.
std::optional<SmiTopo> parse_topo(const std::string& text, const std::string& file, Diagnostics& diags);

/// One row of `nvidia-smi mig -lgi` (GPU instances).
struct SmiGpuInstance {
  int gpu = 0;
  std::string profile;  // 3g.40gb
  int profile_id = 0;
  int instance_id = 0;
  int start = 0;  // placement: first memory slice
  int size = 0;
};
/// One row of `nvidia-smi mig -lci` (compute instances).
struct SmiComputeInstance {
  int gpu = 0;
  int gpu_instance = 0;
  std::string profile;
  int profile_id = 0;
  int instance_id = 0;
  int start = 0;  // compute slices; -1: not listed (drivers before the Placement column)
  int size = 0;   // -1: the whole GPU instance (a profile named like it, listed without placement)
  int line = 0;   // in the saved listing, for messages
};

std::optional<std::vector<SmiGpuInstance>> parse_mig_lgi(const std::string& text, const std::string& file,
                                                         Diagnostics& diags);
std::optional<std::vector<SmiComputeInstance>> parse_mig_lci(const std::string& text, const std::string& file,
                                                             Diagnostics& diags);
/// The GPU-instance profiles of one GPU, in placement order (a scenario migLayout).
std::vector<std::string> mig_layout_of_gpu(const std::vector<SmiGpuInstance>& instances, int gpu);
/// How a `mig -lci` listing sits in a `mig -lgi` one. Only GPUs the -lci listing names are checked
/// for GPU instances without a compute instance (a capture of one GPU says nothing of the others).
struct ComputeInstanceCheck {
  struct Error {
    int line;  // of the compute instance in the -lci listing
    std::string message;
  };
  std::vector<Error> errors;       // compute instances in no listed GPU instance, or larger than theirs
  std::vector<std::string> notes;  // GPU instances split into several compute instances, or with none
};
/// `geometry`: the product's MIG table, which gives each GPU-instance profile's compute slices (the
/// size check is skipped for a profile the table does not have; the layout check reports it).
ComputeInstanceCheck check_compute_instances(const std::vector<SmiGpuInstance>& gpu_instances,
                                             const std::vector<SmiComputeInstance>& compute_instances,
                                             const MigGeometry& geometry);
/// The layout of every GPU the listing names, by GPU index.
std::map<int, std::vector<std::string>> mig_layouts_by_gpu(const std::vector<SmiGpuInstance>& instances);

}  // namespace gtw::fabric
