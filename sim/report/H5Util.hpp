#pragma once
// HDF5 helpers shared by the results.h5 writers (ResultsH5.cpp, AuditH5.cpp, ...): attributes and packed
// compound tables over the handles of sim/core/H5Handle.hpp. Internal to gtw_report.
#include <hdf5.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

#include "Errors.hpp"
#include "H5Handle.hpp"
#include "RunResult.hpp"
#include "Scenario.hpp"

namespace gtw::h5 {

inline constexpr hsize_t EVENT_CHUNK_ROWS = 16384;
inline constexpr unsigned EVENT_DEFLATE_LEVEL = 4;

inline H5Id vlen_string_type() {
  H5Id t(H5Tcopy(H5T_C_S1), H5Tclose, "cannot create string type");
  check(H5Tset_size(t.get(), H5T_VARIABLE), "cannot size string type");
  check(H5Tset_cset(t.get(), H5T_CSET_UTF8), "cannot set string charset");
  return t;
}

/// Object creation properties shared by every group and dataset: no timestamps (determinism).
inline H5Id group_props() {
  H5Id p(H5Pcreate(H5P_GROUP_CREATE), H5Pclose, "cannot create group properties");
  check(H5Pset_obj_track_times(p.get(), false), "cannot disable group time tracking");
  return p;
}

inline H5Id dataset_props() {
  H5Id p(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, "cannot create dataset properties");
  check(H5Pset_obj_track_times(p.get(), false), "cannot disable dataset time tracking");
  return p;
}

inline H5Id make_group(hid_t loc, const char* name) {
  const H5Id gcpl = group_props();
  return H5Id(H5Gcreate2(loc, name, H5P_DEFAULT, gcpl.get(), H5P_DEFAULT), H5Gclose,
              std::string("cannot create group ") + name);
}

// --- attributes ---

inline void attr_write(hid_t loc, const char* name, hid_t file_type, hid_t mem_type, const void* value) {
  const H5Id space(H5Screate(H5S_SCALAR), H5Sclose, "cannot create scalar dataspace");
  const H5Id attr(H5Acreate2(loc, name, file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
                  std::string("cannot create attribute ") + name);
  check(H5Awrite(attr.get(), mem_type, value), std::string("cannot write attribute ") + name);
}

inline void attr_string(hid_t loc, const char* name, const std::string& value) {
  const H5Id t = vlen_string_type();
  const char* p = value.c_str();
  attr_write(loc, name, t.get(), t.get(), &p);
}

inline void attr_f64(hid_t loc, const char* name, double value) {
  attr_write(loc, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &value);
}

inline void attr_u64(hid_t loc, const char* name, uint64_t value) {
  attr_write(loc, name, H5T_STD_U64LE, H5T_NATIVE_UINT64, &value);
}

// --- tables (1-D datasets of a compound type) ---

/// One member of a table: its offset in the in-memory row, its memory type and its file type.
struct Field {
  const char* name;
  size_t offset;
  hid_t mem;
  hid_t file;
};

struct TableOptions {
  bool chunked = false;  // chunked, unlimited, shuffle + deflate (the event log)
};

/// A run of contiguous rows.
struct RowBlock {
  const void* rows;
  size_t n;
};

/// Writes `n` rows, handed over in `block_count` blocks by `block_at(k)` in order, as one table (each block a
/// contiguous array of `row_size`-byte structs, valid until the next call). The file type is packed: no
/// padding bytes, so nothing uninitialised reaches the file.
inline H5Id write_table(hid_t loc, const char* name, size_t n, size_t block_count,
                        const std::function<RowBlock(size_t)>& block_at, size_t row_size,
                        std::initializer_list<Field> fields, TableOptions options = {}) {
  const std::string what = std::string("/") + name;
  H5Id mem(H5Tcreate(H5T_COMPOUND, row_size), H5Tclose, "cannot create memory type for " + what);
  size_t file_size = 0;
  for (const Field& f : fields) {
    check(H5Tinsert(mem.get(), f.name, f.offset, f.mem), "cannot build memory type for " + what);
    const size_t s = H5Tget_size(f.file);
    if (s == 0) fail("cannot size member " + std::string(f.name) + " of " + what);
    file_size += s;
  }
  H5Id file(H5Tcreate(H5T_COMPOUND, file_size), H5Tclose, "cannot create file type for " + what);
  size_t offset = 0;
  for (const Field& f : fields) {
    check(H5Tinsert(file.get(), f.name, offset, f.file), "cannot build file type for " + what);
    offset += H5Tget_size(f.file);
  }

  const hsize_t dims[1] = {static_cast<hsize_t>(n)};
  const hsize_t unlimited[1] = {H5S_UNLIMITED};
  const H5Id space(H5Screate_simple(1, dims, options.chunked ? unlimited : nullptr), H5Sclose,
                   "cannot create dataspace for " + what);
  const H5Id dcpl = dataset_props();
  if (options.chunked) {
    // An unlimited maximum lets the chunk exceed the row count (and allows an empty log).
    const hsize_t chunk[1] = {EVENT_CHUNK_ROWS};
    check(H5Pset_chunk(dcpl.get(), 1, chunk), "cannot set chunking for " + what);
    check(H5Pset_shuffle(dcpl.get()), "cannot enable shuffle for " + what);
    check(H5Pset_deflate(dcpl.get(), EVENT_DEFLATE_LEVEL), "cannot enable deflate for " + what);
  }
  H5Id dset(H5Dcreate2(loc, name, file.get(), space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT), H5Dclose,
            "cannot create dataset " + what);
  if (block_count == 1 && n > 0) {
    check(H5Dwrite(dset.get(), mem.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, block_at(0).rows), "cannot write " + what);
    return dset;
  }
  hsize_t offset_rows = 0;
  for (size_t k = 0; k < block_count; ++k) {
    const RowBlock b = block_at(k);
    if (b.n == 0) continue;
    const hsize_t start[1] = {offset_rows};
    const hsize_t count[1] = {static_cast<hsize_t>(b.n)};
    check(H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, start, nullptr, count, nullptr),
          "cannot select rows of " + what);
    const H5Id memory_space(H5Screate_simple(1, count, nullptr), H5Sclose, "cannot create dataspace for " + what);
    check(H5Dwrite(dset.get(), mem.get(), memory_space.get(), space.get(), H5P_DEFAULT, b.rows),
          "cannot write " + what);
    offset_rows += count[0];
  }
  return dset;
}

/// Writes the rows of `blocks`, in order, as one table.
inline H5Id write_table(hid_t loc, const char* name, const std::vector<RowBlock>& blocks, size_t row_size,
                        std::initializer_list<Field> fields, TableOptions options = {}) {
  size_t n = 0;
  for (const RowBlock& b : blocks) n += b.n;
  return write_table(
      loc, name, n, blocks.size(), [&](size_t k) { return blocks[k]; }, row_size, fields, options);
}

/// Writes `n` rows starting at `rows` (a contiguous array of `row_size`-byte structs).
inline H5Id write_table(hid_t loc, const char* name, const void* rows, size_t n, size_t row_size,
                        std::initializer_list<Field> fields, TableOptions options = {}) {
  return write_table(
      loc, name, n, 1,
      [&](size_t) {
        return RowBlock{rows, n};
      },
      row_size, fields, options);
}

template <class Row>
H5Id write_table(hid_t loc, const char* name, const std::vector<Row>& rows, std::initializer_list<Field> fields,
                 TableOptions options = {}) {
  return write_table(loc, name, rows.data(), rows.size(), sizeof(Row), fields, options);
}

#define GTW_FIELD(Row, member, mem_type, file_type)     \
  ::gtw::h5::Field {                                    \
#member, offsetof(Row, member), mem_type, file_type \
  }

}  // namespace gtw::h5

namespace gtw {
namespace audit {
struct AuditLog;
struct ChainCheck;
}  // namespace audit
/// The /audit group (AuditH5.cpp): written when audit_applies(spec). `log` and `chain`: the run's audit
/// stream and its verification when the caller has them (ComplianceReport), so that the SHA-256 chain
/// is not built and verified again; null: built here.
void write_audit_group(hid_t root, const ScenarioSpec& spec, const RunResult& run, const audit::AuditLog* log = nullptr,
                       const audit::ChainCheck* chain = nullptr);
}  // namespace gtw
