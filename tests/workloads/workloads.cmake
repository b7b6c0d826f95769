# workloads: one eprof_workload() line each
