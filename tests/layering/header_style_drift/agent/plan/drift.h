/* A header written in the old style, so that header_style_catches_drift can
 * check that cmake/CheckHeaderStyle.cmake reports it (it is never compiled). */
#ifndef FOVEA_TESTS_HEADER_STYLE_DRIFT_H
#define FOVEA_TESTS_HEADER_STYLE_DRIFT_H

/* Purpose: the old labelled style. Thread: any. */
int drift_example(void);

#endif
