print("DecodeBenchmark: not built yet")
