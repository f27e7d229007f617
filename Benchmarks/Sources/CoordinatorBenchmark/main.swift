print("CoordinatorBenchmark: not built yet")
