#include "mosquitto_baseline.h"

#include <mosquitto.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct baseline_state {
    pthread_mutex_t mutex;
    pthread_cond_t changed;
    int connected;
    int completed;
    int target;
};

static void on_connect(struct mosquitto *mosq, void *userdata, int rc, int flags, const mosquitto_property *props) {
    (void)mosq; (void)flags; (void)props;
    struct baseline_state *state = userdata;
    pthread_mutex_lock(&state->mutex);
    state->connected = rc == 0 ? 1 : -1;
    pthread_cond_broadcast(&state->changed);
    pthread_mutex_unlock(&state->mutex);
}

static void on_publish(struct mosquitto *mosq, void *userdata, int mid, int reason, const mosquitto_property *props) {
    (void)mosq; (void)mid; (void)reason; (void)props;
    struct baseline_state *state = userdata;
    pthread_mutex_lock(&state->mutex);
    state->completed += 1;
    /* Wake the waiting publisher only when everything is done, as the wrapper's drain() does. */
    if (state->completed == state->target) pthread_cond_broadcast(&state->changed);
    pthread_mutex_unlock(&state->mutex);
}

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double mosquitto_baseline_publish(const char *host, int port, int count, int payload_size, int qos, int max_inflight) {
    mosquitto_lib_init();
    struct baseline_state state = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, count};
    char id[64];
    snprintf(id, sizeof id, "baseline-c-%ld", (long)now_seconds() * 1000 + rand() % 1000);
    struct mosquitto *mosq = mosquitto_new(id, true, &state);
    if (!mosq) return -1;
    mosquitto_int_option(mosq, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V5);
    mosquitto_int_option(mosq, MOSQ_OPT_SEND_MAXIMUM, max_inflight);
    mosquitto_int_option(mosq, MOSQ_OPT_TCP_NODELAY, 1);
    mosquitto_connect_v5_callback_set(mosq, on_connect);
    mosquitto_publish_v5_callback_set(mosq, on_publish);
    mosquitto_loop_start(mosq);
    if (mosquitto_connect_async(mosq, host, port, 30) != MOSQ_ERR_SUCCESS) {
        mosquitto_loop_stop(mosq, true);
        mosquitto_destroy(mosq);
        return -2;
    }
    pthread_mutex_lock(&state.mutex);
    while (state.connected == 0) pthread_cond_wait(&state.changed, &state.mutex);
    int connected = state.connected;
    pthread_mutex_unlock(&state.mutex);
    if (connected < 0) {
        mosquitto_loop_stop(mosq, true);
        mosquitto_destroy(mosq);
        return -3;
    }

    unsigned char *payload = malloc((size_t)payload_size);
    memset(payload, 'x', (size_t)payload_size);
    double start = now_seconds();
    for (int i = 0; i < count; i++) {
        int rc = mosquitto_publish_v5(mosq, NULL, "bench/c", payload_size, payload, qos, false, NULL);
        if (rc != MOSQ_ERR_SUCCESS) {
            free(payload);
            mosquitto_loop_stop(mosq, true);
            mosquitto_destroy(mosq);
            return -4;
        }
    }
    pthread_mutex_lock(&state.mutex);
    while (state.completed < count) pthread_cond_wait(&state.changed, &state.mutex);
    pthread_mutex_unlock(&state.mutex);
    double elapsed = now_seconds() - start;

    free(payload);
    mosquitto_disconnect(mosq);
    mosquitto_loop_stop(mosq, false);
    mosquitto_destroy(mosq);
    return elapsed;
}
