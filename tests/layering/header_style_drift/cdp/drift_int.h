/* A private header written in the old style, so that
 * header_style_catches_int_drift can check that cmake/CheckHeaderStyle.cmake
 * reads *_int.h files and folders beyond agent/ (it is never compiled). */
#ifndef FOVEA_TESTS_HEADER_STYLE_DRIFT_INT_H
#define FOVEA_TESTS_HEADER_STYLE_DRIFT_INT_H

/* Frees x; a comment that kept only its old ownership label.
 * Ownership: x is consumed. */
void drift_int_example(void *x);

#endif
