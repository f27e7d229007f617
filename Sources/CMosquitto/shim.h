#ifndef BEACONFLEET_CMOSQUITTO_SHIM_H
#define BEACONFLEET_CMOSQUITTO_SHIM_H
#include <mosquitto.h>
#include <mqtt_protocol.h>
#endif
