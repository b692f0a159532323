// CRC-32 (IEEE 802.3, reflected, zlib's) folded sixteen bytes at a time with carry-less
// multiplication, where the processor has it (x86-64 PCLMULQDQ). TabKeep's `CRC32` calls it for
// the bulk of long inputs and zlib's `crc32` for the rest; elsewhere it folds nothing.
#ifndef TABKEEP_CFOLDEDCRC_H
#define TABKEEP_CFOLDEDCRC_H

#include <stddef.h>
#include <stdint.h>

/// Folds a prefix of `bytes` (a multiple of 16 bytes, at least 64, as much as `length` allows)
/// read from the raw CRC register `raw` (no pre- or post-inversion) into the 16 bytes `out`, such
/// that the raw CRC of `out` from a zero register is the raw CRC of that prefix from `raw`.
/// Returns the length of the prefix; 0 when `length` is below 64 or the processor cannot fold,
/// and then `out` is not written.
size_t tabkeep_crc32_fold(uint32_t raw, const uint8_t *bytes, size_t length, uint8_t out[16]);

#endif
