#ifndef BEACONFLEET_MALLOC_INFO_SHIM_H
#define BEACONFLEET_MALLOC_INFO_SHIM_H
#include <stddef.h>

/// Bytes allocated with malloc and not freed (glibc mallinfo2: uordblks + hblkhd), or 0 where
/// mallinfo2 is not available. Swift's Glibc module does not import <malloc.h>.
size_t beaconfleet_heap_in_use(void);

/// 1 where beaconfleet_heap_in_use measures, else 0.
int beaconfleet_heap_in_use_available(void);

#endif
