#ifndef BEACONFLEET_CMOSQUITTO_SHIM_H
#define BEACONFLEET_CMOSQUITTO_SHIM_H
#include <mosquitto.h>
#include <mqtt_protocol.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The calling thread's kernel id, for the MQTT network thread: glibc's gettid() is declared only
   under _GNU_SOURCE, which Swift's Glibc module is built without, and syscall() is variadic. */
static inline int bf_current_thread_id(void) { return (int)syscall(SYS_gettid); }
#endif
