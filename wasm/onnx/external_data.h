/* Where an external data file may be: a location (TensorProto.external_data
 * "location") is resolved next to the model file, so it is trusted only when
 * it stays in the model's folder: relative, '/'-separated, no empty, "." or
 * ".." segment, no scheme ("https:", "C:"), no backslash, no control byte.
 * The report says so per entry ("inFolder"); a load refuses the others. */
#ifndef ORTKEEP_EXTERNAL_DATA_H
#define ORTKEEP_EXTERNAL_DATA_H

#include <stddef.h>
#include <stdint.h>

int ok_external_in_folder(const uint8_t *location, size_t n);

#endif
