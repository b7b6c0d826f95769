# unit tests: one eprof_unit_test() line per module
eprof_unit_test(test_pprof LIBS eprof_report)
eprof_unit_test(test_svg LIBS eprof_report)
eprof_unit_test(test_format LIBS eprof_format)
eprof_unit_test(test_codec LIBS eprof_format)
eprof_unit_test(test_tablecache LIBS eprof_format)
eprof_unit_test(test_hostile LIBS eprof_format)
eprof_unit_test(test_fold LIBS eprof_report)
eprof_unit_test(test_fuzz_regressions SOURCES ${CMAKE_SOURCE_DIR}/tests/fuzz/drive.c
  ${CMAKE_SOURCE_DIR}/tests/fuzz/drive_report.c LIBS eprof_report)
eprof_unit_test(test_report_views LIBS eprof_report)
eprof_unit_test(test_symbol_merge LIBS eprof_report)
eprof_unit_test(test_stack_store LIBS eprof_report)
# test_cfi compares elf/cfi.c with readelf on libc and on three builds of a
# workload: known_split (PIE) and cfi_exec, the same source linked as a
# non-PIE ET_EXEC without frame pointers (its virtual addresses are not its
# file offsets).
add_executable(cfi_exec ${CMAKE_CURRENT_SOURCE_DIR}/workloads/known_split.c)
target_compile_options(cfi_exec PRIVATE -O2 -g -fno-pie -fomit-frame-pointer -Wno-missing-prototypes)
target_link_options(cfi_exec PRIVATE -no-pie)
set_target_properties(cfi_exec PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/helper)
# cfi_dbgframe: built without unwind tables, so its CFI is .debug_frame,
# and the .eh_frame that crt1.o and friends bring is removed.
add_executable(cfi_dbgframe ${CMAKE_CURRENT_SOURCE_DIR}/workloads/known_split.c)
target_compile_options(cfi_dbgframe PRIVATE -O2 -g -fno-asynchronous-unwind-tables -fno-unwind-tables
                                            -Wno-missing-prototypes)
set_target_properties(cfi_dbgframe PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/helper)
add_custom_command(TARGET cfi_dbgframe POST_BUILD
  COMMAND ${CMAKE_OBJCOPY} --remove-section .eh_frame --remove-section .eh_frame_hdr
          $<TARGET_FILE:cfi_dbgframe>)
# It also replays tests/fixtures/regressions/cfi-*.bin through fuzz_cfi.c's entry point.
eprof_unit_test(test_cfi SOURCES ${CMAKE_SOURCE_DIR}/tests/fuzz/fuzz_cfi.c LIBS eprof_elf)
target_compile_definitions(test_cfi PRIVATE EPROF_WORKLOADS="${CMAKE_CURRENT_BINARY_DIR}/workloads"
                                            EPROF_TEST_BIN="${CMAKE_CURRENT_BINARY_DIR}/helper"
                                            EPROF_REGRESSIONS="${CMAKE_SOURCE_DIR}/tests/fixtures/regressions")
add_dependencies(test_cfi known_split plt_loop_ibt cfi_exec cfi_dbgframe)
eprof_unit_test(test_demangle LIBS eprof_report)
eprof_unit_test(test_elf_symbols LIBS eprof_elf)
eprof_unit_test(test_minidebug LIBS eprof_elf)
target_compile_definitions(test_elf_symbols PRIVATE EPROF_WORKLOADS="${CMAKE_CURRENT_BINARY_DIR}/workloads")
add_dependencies(test_elf_symbols plt_loop plt_loop_ibt)
# record/: what can be tested without the kernel (stacks, side-band order, targets)
eprof_unit_test(test_record_stacks LIBS eprof_record)
eprof_unit_test(test_uwalk LIBS eprof_record)
eprof_unit_test(test_record_sideband LIBS eprof_record)
eprof_unit_test(test_record_target LIBS eprof_record)
eprof_unit_test(test_record_stats LIBS eprof_record)
eprof_unit_test(test_record_budget LIBS eprof_record)
eprof_unit_test(test_record_threads LIBS eprof_record)
eprof_unit_test(test_record_python LIBS eprof_record)
eprof_unit_test(test_vec LIBS eprof_util)
eprof_unit_test(test_bsearch LIBS eprof_util)
eprof_unit_test(test_json LIBS eprof_util)
eprof_unit_test(test_hashmap LIBS eprof_util)
