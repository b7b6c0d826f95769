# unit tests: one eprof_unit_test() line per module
