// gputwin audit verify FILE.jsonl: recomputes the hash chain of an audit.jsonl (docs/models/audit.md)
// and names the first record that does not verify. Exit 0 intact, 1 broken chain, 2 unreadable or
// malformed file.
#include <iostream>
#include <memory>

#include "AuditLog.hpp"
#include "AuditWriters.hpp"
#include "Commands.hpp"
#include "Errors.hpp"
#include "InputFile.hpp"

namespace gtw::cli {

Subcommand register_audit_command(CLI::App& app) {
  auto file = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("audit", "Work with audit trails (audit.jsonl)");
  cmd->require_subcommand(1);
  auto* verify =
      cmd->add_subcommand("verify", "Recompute the hash chain of an audit.jsonl and report the first bad record");
  verify->add_option("file", *file, "audit.jsonl written by `gputwin run`")->required();
  return {cmd, [file]() {
            // Regular files only, within the audit cap (a directory used to read as "intact (0 records)").
            Diagnostics diags;
            const auto text = read_input_file(*file, InputKind::AUDIT_LOG, diags);
            if (!text) {
              std::cerr << diags.format_all();
              return EXIT_INVALID_INPUT;
            }
            std::vector<audit::AuditRecord> records;
            std::string error;
            if (!parse_audit_jsonl(*text, records, error)) {
              std::cerr << *file << ":" << error << "\n";
              return EXIT_INVALID_INPUT;
            }
            const auto check = audit::verify_chain(records);
            if (!check.intact) {
              std::cout << "record " << check.first_bad << ": " << check.reason << "\n";
              return EXIT_EXPECTATION;
            }
            std::cout << "intact (" << records.size() << " records)\n";
            return EXIT_OK;
          }};
}

}  // namespace gtw::cli
