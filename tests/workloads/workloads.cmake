# SPDX-License-Identifier: MIT
# Workloads with a known CPU split; e2e tests profile them.
eprof_workload(known_split)
eprof_workload(gen_bigsect)
eprof_workload(forker)
eprof_workload(short_lived)
eprof_workload(mmap_storm)
eprof_workload(mapmany)
eprof_workload(renamer)
eprof_workload(bench_load LIBS pthread)

# dlopener loads libhotlib.so (built next to it) in the middle of its run.
add_library(hotlib SHARED ${CMAKE_CURRENT_SOURCE_DIR}/workloads/hotlib.c)
target_compile_options(hotlib PRIVATE -O2 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer
                                      -Wno-missing-prototypes)
set_target_properties(hotlib PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/workloads)
eprof_workload(dlopener LIBS ${CMAKE_DL_LIBS} pthread)
add_dependencies(dlopener hotlib)

# jit writes /tmp/perf-PID.map for code it generates.
eprof_workload(jit)
# jit_fp: an anonymous frame-pointer stub between two C functions.
eprof_workload(jit_fp)

# inline_app, stripped (workloads/stripped/inline_app, with a .gnu_debuglink)
# and its DWARF in a separate file (workloads/debug/inline_app.debug).
eprof_workload(inline_app)
set(wl ${CMAKE_CURRENT_BINARY_DIR}/workloads)
add_custom_command(
  OUTPUT ${wl}/stripped/inline_app ${wl}/debug/inline_app.debug
  COMMAND ${CMAKE_COMMAND} -E make_directory ${wl}/stripped ${wl}/debug
  COMMAND ${CMAKE_OBJCOPY} --only-keep-debug $<TARGET_FILE:inline_app> ${wl}/debug/inline_app.debug
  COMMAND ${CMAKE_OBJCOPY} --strip-all --add-gnu-debuglink=${wl}/debug/inline_app.debug
          $<TARGET_FILE:inline_app> ${wl}/stripped/inline_app
  DEPENDS inline_app
  COMMENT "stripping inline_app into stripped/ and debug/")
add_custom_target(inline_app_split ALL DEPENDS ${wl}/stripped/inline_app ${wl}/debug/inline_app.debug)

# report views (issue 5): phases in time, threads pinned to CPUs, a known
# ratio for diffs, and a synthetic recording with many distinct stacks.
eprof_workload(phases)
eprof_workload(pinned LIBS pthread)
eprof_workload(ratio)
eprof_workload(gen_stacks LIBS eprof_format)
eprof_workload(fork_after_dlopen LIBS ${CMAKE_DL_LIBS})
add_dependencies(fork_after_dlopen hotlib)

# issue 11, names: PLT stubs and an assembly label (plt_loop; plt_loop_ibt
# has the IBT layout, stubs in .plt.sec), and C++ names to demangle
# (cxx_names, built with the system's g++: eprof itself stays C).
eprof_workload(plt_loop FLAGS -fno-builtin)
# issue 11: ld.so's lazy-binding resolver (CFA from rbx), run with LD_BIND_NOT=1.
eprof_workload(lazy_bind FLAGS -fno-builtin LIBS -Wl,-z,lazy)
add_executable(plt_loop_ibt ${CMAKE_CURRENT_SOURCE_DIR}/workloads/plt_loop.c)
target_compile_options(plt_loop_ibt PRIVATE -O2 -g -fno-omit-frame-pointer -fno-builtin
                                            -fcf-protection=full -Wno-missing-prototypes)
target_link_options(plt_loop_ibt PRIVATE -Wl,-z,ibtplt)
set_target_properties(plt_loop_ibt PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${wl})
find_program(EPROF_CXX NAMES g++ c++ REQUIRED)
add_custom_command(
  OUTPUT ${wl}/cxx_names
  COMMAND ${EPROF_CXX} -O2 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -Wall -Wextra
          -Werror -o ${wl}/cxx_names ${CMAKE_CURRENT_SOURCE_DIR}/workloads/cxx_names.cpp
  DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/workloads/cxx_names.cpp
  COMMENT "building the C++ workload cxx_names")
add_custom_target(cxx_names ALL DEPENDS ${wl}/cxx_names)
# issue 9: small recordings as a hostile user could hand them to the reader.
eprof_workload(gen_hostile LIBS eprof_format)
eprof_workload(gen_busy LIBS eprof_format)

# unwinding (issue 11): a frameless hot leaf under two callers (70/30), the
# hot work in a signal handler, threads and a recursion deeper than 127,
# and clock reads in the vDSO.
eprof_workload(frameless FLAGS -momit-leaf-frame-pointer)
eprof_workload(sighandler)
eprof_workload(vdso_clock)
eprof_workload(threads_deep LIBS pthread)
# many distinct stacks (issue 24: the stack table within the memory budget)
eprof_workload(random_paths LIBS pthread)

# off-CPU (issue 12): known run/sleep/wait split, and mutex contention.
eprof_workload(offcpu_split LIBS pthread)
eprof_workload(pingpong LIBS pthread)
eprof_workload(names_public LIBS pthread)

# issue 19: libbigcfi.so, much CFI and no frame pointers (its table goes by
# windows under a small --unwind-budget), and bigcfi_run, which dlopens it.
add_library(bigcfi SHARED ${CMAKE_CURRENT_SOURCE_DIR}/workloads/bigcfi.c)
target_compile_options(bigcfi PRIVATE -O2 -g -fomit-frame-pointer -Wno-missing-prototypes)
set_target_properties(bigcfi PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/workloads)
eprof_workload(bigcfi_run LIBS ${CMAKE_DL_LIBS})
add_dependencies(bigcfi_run bigcfi)
