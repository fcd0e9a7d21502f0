# libFuzzer targets (tests/fuzz). GPUTWIN_FUZZ=ON, clang only: every gputwin library is compiled with
# coverage instrumentation (-fsanitize=fuzzer-no-link, through gtw::warnings) and tests/fuzz builds the
# fuzzers gputwin-fuzz-<name> (-fsanitize=fuzzer); scripts/fuzz.sh configures such a build (build-fuzz)
# with GPUTWIN_SANITIZE=address,undefined. Without it, tests/fuzz builds the same targets with a replay
# driver for the ordinary test suite (ctest -R fuzz_replay). Included after GtwWarnings.
option(GPUTWIN_FUZZ "Build the libFuzzer targets gputwin-fuzz-* (clang only; see scripts/fuzz.sh)" OFF)
set(GTW_FUZZ_ENABLED OFF)
if(GPUTWIN_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "GPUTWIN_FUZZ=ON needs clang (libFuzzer); the C++ compiler is ${CMAKE_CXX_COMPILER_ID}")
  endif()
  set(GTW_FUZZ_ENABLED ON)
  target_compile_options(gtw_warnings INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-fsanitize=fuzzer-no-link>)
  message(STATUS "libFuzzer targets: ON (gputwin-fuzz-*)")
endif()
