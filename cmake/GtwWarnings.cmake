# One interface target carries the warning flags and sanitizers for every gputwin target.
add_library(gtw_warnings INTERFACE)
add_library(gtw::warnings ALIAS gtw_warnings)
target_compile_options(gtw_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wcast-align
  -Woverloaded-virtual -Wimplicit-fallthrough>)
if(GPUTWIN_WERROR)
  target_compile_options(gtw_warnings INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-Werror>)
endif()
if(GPUTWIN_SANITIZE)
  string(REPLACE "," ";" _gtw_sanitizers "${GPUTWIN_SANITIZE}")
  foreach(_s IN LISTS _gtw_sanitizers)
    target_compile_options(gtw_warnings INTERFACE -fsanitize=${_s} -fno-omit-frame-pointer
                                                  -fno-sanitize-recover=all)
    target_link_options(gtw_warnings INTERFACE -fsanitize=${_s})
  endforeach()
  # GCC's manual (Instrumentation Options): sanitizers raise the rate of false -Wmaybe-uninitialized
  # warnings; at -O1 they fire inside libstdc++'s <regex> and Boost.Optional. The warning stays on, and an
  # error, in every build without sanitizers.
  target_compile_options(gtw_warnings INTERFACE
    $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CXX_COMPILER_ID:GNU>>:-Wno-maybe-uninitialized>)
  # SimGrid's default (raw, assembly) actor contexts switch stacks behind ASan's back, which leaves
  # stale stack poisoning and false reports on unwinding; sanitizer builds use ucontext actors with
  # small stacks (sim/engine/Engine.cpp).
  target_compile_definitions(gtw_warnings INTERFACE GTW_SANITIZER_BUILD=1)
endif()

# gtw_add_library(name SOURCES ... DEPS ...): a static library with the project's conventions.
# gtw_add_library(name SOURCES ... [INCLUDE_DIRS ...] [DEPS ...] [PRIVATE_DEPS ...]): a static library whose
# public include root is its own folder (or the INCLUDE_DIRS given, relative to it), never the repository:
# a target sees the headers of the targets it depends on and nothing else, so a missing dependency is a
# compile error. Project headers are included by their file name, unique across the tree
# (scripts/check-layering.py, the `layering` test, checks both and the layer rules).
function(gtw_add_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;PRIVATE_DEPS;INCLUDE_DIRS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  add_library(gtw::${name} ALIAS ${name})
  if(NOT ARG_INCLUDE_DIRS)
    set(ARG_INCLUDE_DIRS .)
  endif()
  set(dirs)
  foreach(d IN LISTS ARG_INCLUDE_DIRS)
    cmake_path(ABSOLUTE_PATH d BASE_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR} NORMALIZE OUTPUT_VARIABLE abs)
    list(APPEND dirs $<BUILD_INTERFACE:${abs}>)
  endforeach()
  target_include_directories(${name} PUBLIC ${dirs})
  target_link_libraries(${name} PUBLIC ${ARG_DEPS} PRIVATE ${ARG_PRIVATE_DEPS} gtw::warnings)
endfunction()
