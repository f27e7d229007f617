// Placeholder so the test target builds before its first real test lands; delete it then.
import Testing
