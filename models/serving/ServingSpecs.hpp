#pragma once
// From a scenario's inference workload to the serving model: the architecture its ModelSpec describes,
// the step and batcher settings of its ServingSpec, and the catalogue lookup that fills `model.id`.
#include <string>

#include "ContinuousBatcher.hpp"
#include "Diagnostics.hpp"
#include "Scenario.hpp"

namespace gtw::serving {

/// The shape as a ModelArchitecture (parameters derived from it).
ModelArchitecture architecture_of(const ModelSpec& model, const std::string& name);
/// Copies a catalogue entry's shape into the spec; parameters and layers from it unless the spec gave them.
void fill_from_catalogue(ModelSpec& model, const ModelArchitecture& entry);
/// Resolves every `model.id` and every inline architecture of the scenario (parameters derived from the
/// shape); an unknown id is a located error naming the catalogue's ids. The catalogue is read once, and
/// only when some workload names an id.
void resolve_models(ScenarioSpec& spec, Diagnostics& diags);
/// Each continuous-batching workload's host time per step from its batching.engine (called by
/// resolve_models); an unknown family is a located error naming the valid ones.
void resolve_engines(ScenarioSpec& spec, Diagnostics& diags);

/// The step model's settings for a workload: tensor/pipeline width, precisions, memory use.
ServingConfig step_config(const WorkloadSpec& w);
/// The batcher's settings, given the KV capacity of the replica's reservation on its GPUs.
BatcherConfig batcher_config(const WorkloadSpec& w, const KvCapacity& kv, int block_size);
/// Bytes a continuous-batching replica reserves on each GPU of its partition: gpuMemoryUtilization of
/// the partition (vLLM takes it at start), or the workload's `memory` when given.
double reservation_bytes(const WorkloadSpec& w, double partition_memory);
/// The least a replica needs per GPU to run at all: its weight shard, the workspace and the KV of one
/// request of the workload's (mean) shape.
double minimum_bytes(const WorkloadSpec& w);

}  // namespace gtw::serving
