#include "EventLog.hpp"

namespace gtw {

const char* event_type_name(EventType t) {
  switch (t) {
    case EventType::RUN_START:
      return "run_start";
    case EventType::PLACED:
      return "placed";
    case EventType::PLACEMENT_FAILED:
      return "placement_failed";
    case EventType::OUT_OF_MEMORY:
      return "out_of_memory";
    case EventType::REQUEST_ARRIVAL:
      return "request_arrival";
    case EventType::REQUEST_DONE:
      return "request_done";
    case EventType::REQUEST_DROPPED:
      return "request_dropped";
    case EventType::BATCH_START:
      return "batch_start";
    case EventType::BATCH_DONE:
      return "batch_done";
    case EventType::GPU_BUSY:
      return "gpu_busy";
    case EventType::CONTEXT_SWITCH:
      return "context_switch";
    case EventType::JOB_SUBMIT:
      return "job_submit";
    case EventType::JOB_START:
      return "job_start";
    case EventType::STEP_DONE:
      return "step_done";
    case EventType::JOB_DONE:
      return "job_done";
    case EventType::WORKLOAD_FAILED:
      return "workload_failed";
    case EventType::GPU_FAULT:
      return "gpu_fault";
    case EventType::MODEL_LOAD:
      return "model_load";
    case EventType::RECONFIGURE_START:
      return "reconfigure_start";
    case EventType::RECONFIGURE_DONE:
      return "reconfigure_done";
    case EventType::MEM_ALLOC:
      return "mem_alloc";
    case EventType::MEM_FREE:
      return "mem_free";
    case EventType::MEM_SCRUB:
      return "mem_scrub";
    case EventType::MEM_RESIDUE:
      return "mem_residue";
    case EventType::MEM_SCRUBBED_REUSE:
      return "mem_scrubbed_reuse";
    case EventType::ATTACK_PROBE:
      return "attack_probe";
    case EventType::ATTACK_BIT:
      return "attack_bit";
    case EventType::ATTACK_OBSERVATION:
      return "attack_observation";
    case EventType::ATTACK_RECOVERED:
      return "attack_recovered";
    case EventType::ATTACK_DONE:
      return "attack_done";
    case EventType::DATA_MOVE:
      return "data_move";
    case EventType::DATA_DENIED:
      return "data_denied";
    case EventType::QUOTA_QUEUED:
      return "quota_queued";
    case EventType::QUOTA_ADMITTED:
      return "quota_admitted";
    case EventType::QUOTA_RELEASED:
      return "quota_released";
    case EventType::QUOTA_PREEMPTED:
      return "quota_preempted";
    case EventType::ATTESTATION:
      return "attestation";
    case EventType::KEY_RELEASE:
      return "key_release";
    case EventType::COMPLIANCE_REFUSED:
      return "compliance_refused";
    case EventType::RUN_END:
      return "run_end";
    case EventType::REQUEST_TOKENS:
      return "request_tokens";
    case EventType::REQUEST_PREEMPTED:
      return "request_preempted";
    case EventType::AGENT_CALL:
      return "agent_call";
    case EventType::SECRET_ROTATED:
      return "secret_rotated";
    case EventType::SECRET_LEAKED:
      return "secret_leaked";
  }
  return "unknown";
}

const char* failure_reason_name(FailureReason r) {
  switch (r) {
    case FailureReason::OUT_OF_MEMORY:
      return "out_of_memory";
    case FailureReason::NOT_PLACED:
      return "not_placed";
    case FailureReason::UNFINISHED:
      return "unfinished";
    case FailureReason::FAULT:
      return "fault";
    case FailureReason::RECONFIGURED:
      return "reconfigured";
    case FailureReason::PREEMPTED:
      return "preempted";
    case FailureReason::KEY_REFUSED:
      return "key_refused";
    default:
      return "";
  }
}

}  // namespace gtw
