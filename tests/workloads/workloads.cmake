# SPDX-License-Identifier: MIT
# Workloads with a known CPU split; e2e tests profile them.
eprof_workload(known_split)
eprof_workload(forker)
eprof_workload(short_lived)
