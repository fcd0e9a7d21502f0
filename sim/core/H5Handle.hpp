#pragma once
// The one HDF5 handle of the project (results.h5, sweep.h5, calibration recordings): an owned hid_t closed on
// scope exit, the library's error stack silenced while writing, and failures turned into RuntimeError with
// the innermost HDF5 message.
#include <hdf5.h>

#include <string>

#include "Errors.hpp"

namespace gtw::h5 {

// The HDF5 error stack is silenced while we write; the innermost entry explains the failure.
inline std::string hdf5_error_detail() {
  std::string detail;
  auto walk = [](unsigned n, const H5E_error2_t* err, void* data) -> herr_t {
    if (n == 0 && err && err->desc) *static_cast<std::string*>(data) = err->desc;
    return 0;
  };
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, walk, &detail);  // best effort: the message has `what` anyway
  return detail;
}

[[noreturn]] inline void fail(const std::string& what) {
  const std::string detail = hdf5_error_detail();
  throw RuntimeError(detail.empty() ? what : what + " (" + detail + ")");
}

inline void check(herr_t r, const std::string& what) {
  if (r < 0) fail(what);
}

/// Owns one hid_t; closes it on scope exit (errors while unwinding are ignored, nothing to do then).
class H5Id {
 public:
  using Closer = herr_t (*)(hid_t);
  /// Throws RuntimeError(what + the HDF5 detail) when `id` is invalid.
  H5Id(hid_t id, Closer closer, const std::string& what) : id_(id), closer_(closer) {
    if (id_ < 0) fail(what);
  }
  /// Takes `id` as it is, valid or not (callers that report failures as values check valid()).
  H5Id(hid_t id, Closer closer) : id_(id), closer_(closer) {}
  bool valid() const { return id_ >= 0; }
  H5Id(const H5Id&) = delete;
  H5Id& operator=(const H5Id&) = delete;
  H5Id(H5Id&& o) noexcept : id_(o.id_), closer_(o.closer_) { o.id_ = H5I_INVALID_HID; }
  H5Id& operator=(H5Id&&) = delete;
  ~H5Id() {
    if (id_ >= 0) closer_(id_);
  }
  hid_t get() const { return id_; }
  /// Explicit, checked close (the file: flushing happens here and may fail).
  void close(const std::string& what) {
    const hid_t id = id_;
    id_ = H5I_INVALID_HID;
    check(closer_(id), what);
  }

 private:
  hid_t id_;
  Closer closer_;
};

/// Silences the HDF5 error stack printer for its lifetime (failures are reported through RuntimeError).
class QuietHdf5Errors {
 public:
  QuietHdf5Errors() {
    if (H5Eget_auto2(H5E_DEFAULT, &func_, &data_) < 0 || H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr) < 0)
      throw RuntimeError("cannot initialise the HDF5 library");
  }
  QuietHdf5Errors(const QuietHdf5Errors&) = delete;
  QuietHdf5Errors& operator=(const QuietHdf5Errors&) = delete;
  ~QuietHdf5Errors() { H5Eset_auto2(H5E_DEFAULT, func_, data_); }  // nothing to do if this fails

 private:
  H5E_auto2_t func_ = nullptr;
  void* data_ = nullptr;
};

}  // namespace gtw::h5
