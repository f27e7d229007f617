// Placeholder so the target builds before its first real source lands; delete it when adding one.
enum TopologyPlaceholder {}
