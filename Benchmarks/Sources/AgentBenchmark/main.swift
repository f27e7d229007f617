print("AgentBenchmark: not built yet")
