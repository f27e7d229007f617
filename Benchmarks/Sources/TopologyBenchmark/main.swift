print("TopologyBenchmark: not built yet")
