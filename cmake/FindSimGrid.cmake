# Finds SimGrid (Debian ships only simgrid.pc, no CMake config) and defines SimGrid::SimGrid.
find_package(PkgConfig QUIET)
if(PkgConfig_FOUND)
  pkg_check_modules(PC_SimGrid QUIET simgrid)
endif()
find_path(SimGrid_INCLUDE_DIR NAMES simgrid/s4u.hpp
          HINTS ${SimGrid_PATH}/include $ENV{SimGrid_PATH}/include ${PC_SimGrid_INCLUDE_DIRS})
find_library(SimGrid_LIBRARY NAMES simgrid
             HINTS ${SimGrid_PATH}/lib $ENV{SimGrid_PATH}/lib ${PC_SimGrid_LIBRARY_DIRS})
if(SimGrid_INCLUDE_DIR AND EXISTS "${SimGrid_INCLUDE_DIR}/simgrid/version.h")
  file(STRINGS "${SimGrid_INCLUDE_DIR}/simgrid/version.h" _sg_version_lines
       REGEX "#define SIMGRID_VERSION_(MAJOR|MINOR|PATCH)")
  foreach(_part MAJOR MINOR PATCH)
    string(REGEX REPLACE ".*#define SIMGRID_VERSION_${_part} ([0-9]+).*" "\\1" SimGrid_VERSION_${_part}
                         "${_sg_version_lines}")
  endforeach()
  set(SimGrid_VERSION "${SimGrid_VERSION_MAJOR}.${SimGrid_VERSION_MINOR}.${SimGrid_VERSION_PATCH}")
endif()
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(SimGrid REQUIRED_VARS SimGrid_LIBRARY SimGrid_INCLUDE_DIR
                                  VERSION_VAR SimGrid_VERSION)
if(SimGrid_FOUND AND NOT TARGET SimGrid::SimGrid)
  add_library(SimGrid::SimGrid UNKNOWN IMPORTED)
  set_target_properties(SimGrid::SimGrid PROPERTIES IMPORTED_LOCATION "${SimGrid_LIBRARY}"
                                                    INTERFACE_INCLUDE_DIRECTORIES "${SimGrid_INCLUDE_DIR}")
endif()
mark_as_advanced(SimGrid_INCLUDE_DIR SimGrid_LIBRARY)
