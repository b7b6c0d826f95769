# unit tests: one eprof_unit_test() line per module
eprof_unit_test(test_pprof LIBS eprof_report)
eprof_unit_test(test_svg LIBS eprof_report)
eprof_unit_test(test_format LIBS eprof_format)
eprof_unit_test(test_codec LIBS eprof_format)
eprof_unit_test(test_fold LIBS eprof_report)
eprof_unit_test(test_fuzz_regressions SOURCES ${CMAKE_SOURCE_DIR}/tests/fuzz/drive.c LIBS eprof_format)
eprof_unit_test(test_report_views LIBS eprof_report)
eprof_unit_test(test_symbol_merge LIBS eprof_report)
