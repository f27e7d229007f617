#ifndef BEACONFLEET_MOSQUITTO_BASELINE_H
#define BEACONFLEET_MOSQUITTO_BASELINE_H

/// The plain C libmosquitto publisher the MQTT wrapper is measured against: connects to host:port
/// (MQTT 5, send maximum `max_inflight`, TCP_NODELAY, libmosquitto's own loop thread), publishes
/// `count` messages of `payload_size` bytes at `qos` as fast as libmosquitto accepts them, and waits
/// until every one is done (QoS 0: written; QoS 1/2: acknowledged).
/// Returns the seconds from the first publish to the last completion, or a negative value on error.
double mosquitto_baseline_publish(const char *host, int port, int count, int payload_size, int qos, int max_inflight);

#endif
