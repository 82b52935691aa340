/* base/num.h: checked conversion of untrusted numbers (JSON, CDP) to int.
 *
 * Converting a double that is NaN, infinite or outside the target type's
 * range to an integer is undefined behaviour in C (UBSan found a box
 * coordinate of 1e30 cast to int). Every number that comes from a file, a
 * page, a browser or a model goes through base_num_to_int before it becomes
 * an int, so the range is checked in one place and the caller decides what
 * an out-of-range value means (an error naming the field, or a default).
 */
#ifndef FOVEA_BASE_NUM_H
#define FOVEA_BASE_NUM_H

#include "base/err.h"

/* Converts v to an int in lo..hi, truncating any fraction toward zero (12.7 ->
 * 12, -0.5 -> 0). Nothing changes owner. Any thread. Errors: BASE_EINVAL when v
 * is NaN or infinite, BASE_ETOOBIG when it lies outside lo..hi (checked before
 * any conversion, so no undefined behaviour); *out is untouched on failure. */
base_err base_num_to_int(double v, int lo, int hi, int *out);

/* As base_num_to_int, but v must also be a whole number (an index, a count, an
 * id): 2.5 is BASE_EINVAL. Any thread. */
base_err base_num_to_int_exact(double v, int lo, int hi, int *out);

/* Parses the integer at the start of s (page attributes such as <select
 * size="4">, environment variables) as HTML parses integer attributes: leading
 * ASCII whitespace, an optional sign, decimal digits; anything after the digits
 * is ignored ("4px" is 4). Unlike atol it never overflows. Borrows s. Any
 * thread. Errors: BASE_EINVAL (NULL or no digits), BASE_ETOOBIG (outside
 * lo..hi); *out untouched on failure. */
base_err base_num_parse_int(const char *s, int lo, int hi, int *out);

#endif
