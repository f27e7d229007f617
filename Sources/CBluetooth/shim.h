#ifndef BEACONFLEET_CBLUETOOTH_SHIM_H
#define BEACONFLEET_CBLUETOOTH_SHIM_H
#include <errno.h>
#include <sys/socket.h>
#include <bluetooth/bluetooth.h>
#include <bluetooth/hci.h>
#include <bluetooth/hci_lib.h>

/* Function-like macros and compound literals do not import into Swift: re-export them. */
static inline uint16_t bf_htobs(uint16_t v) { return htobs(v); }
static inline uint16_t bf_btohs(uint16_t v) { return btohs(v); }
static inline uint16_t bf_cmd_opcode_pack(uint16_t ogf, uint16_t ocf) { return cmd_opcode_pack(ogf, ocf); }
static inline void bf_hci_filter_clear(struct hci_filter *f) { hci_filter_clear(f); }
static inline void bf_hci_filter_set_ptype(int t, struct hci_filter *f) { hci_filter_set_ptype(t, f); }
static inline void bf_hci_filter_set_event(int e, struct hci_filter *f) { hci_filter_set_event(e, f); }
static inline int bf_errno(void) { return errno; }
#endif
