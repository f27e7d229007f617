print("MQTTBenchmark: not built yet")
