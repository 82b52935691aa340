/* base/geom.h: points and axis-aligned rectangles in CSS pixels.
 *
 * Rectangles are half-open [x0, x1) x [y0, y1); a rectangle with x1 <= x0 or
 * y1 <= y0 is empty. All functions are pure and inline-cheap.
 */
#ifndef FOVEA_BASE_GEOM_H
#define FOVEA_BASE_GEOM_H

typedef struct base_point {
    float x, y;
} base_point;

typedef struct base_rect {
    float x0, y0, x1, y1;
} base_rect;

base_rect base_rect_xywh(float x, float y, float w, float h);
float base_rect_w(base_rect r);
float base_rect_h(base_rect r);
int base_rect_empty(base_rect r);
float base_rect_area(base_rect r);
base_point base_rect_center(base_rect r);
int base_rect_contains(base_rect r, base_point p);
/* Intersection; an empty rectangle when they do not overlap. */
base_rect base_rect_intersect(base_rect a, base_rect b);
/* Smallest rectangle holding both (an empty one is ignored). */
base_rect base_rect_union(base_rect a, base_rect b);
/* Intersection over union in [0, 1]; 0 when either is empty. */
float base_rect_iou(base_rect a, base_rect b);
/* Clamps r into bounds. */
base_rect base_rect_clamp(base_rect r, base_rect bounds);
/* Euclidean distance. */
float base_point_dist(base_point a, base_point b);

#endif
