/* base/geom.c: rectangle arithmetic used by the snapper, overlays and cascade. */
#include "base/geom.h"

#include <math.h>

base_rect base_rect_xywh(float x, float y, float w, float h)
{
    base_rect r = {x, y, x + w, y + h};
    return r;
}

float base_rect_w(base_rect r)
{
    return r.x1 > r.x0 ? r.x1 - r.x0 : 0.0f;
}

float base_rect_h(base_rect r)
{
    return r.y1 > r.y0 ? r.y1 - r.y0 : 0.0f;
}

int base_rect_empty(base_rect r)
{
    return !(r.x1 > r.x0 && r.y1 > r.y0);
}

float base_rect_area(base_rect r)
{
    return base_rect_w(r) * base_rect_h(r);
}

base_point base_rect_center(base_rect r)
{
    base_point p = {(r.x0 + r.x1) * 0.5f, (r.y0 + r.y1) * 0.5f};
    return p;
}

int base_rect_contains(base_rect r, base_point p)
{
    return p.x >= r.x0 && p.x < r.x1 && p.y >= r.y0 && p.y < r.y1;
}

base_rect base_rect_intersect(base_rect a, base_rect b)
{
    base_rect r = {fmaxf(a.x0, b.x0), fmaxf(a.y0, b.y0), fminf(a.x1, b.x1), fminf(a.y1, b.y1)};
    if (base_rect_empty(r)) {
        base_rect z = {0, 0, 0, 0};
        return z;
    }
    return r;
}

base_rect base_rect_union(base_rect a, base_rect b)
{
    if (base_rect_empty(a))
        return b;
    if (base_rect_empty(b))
        return a;
    base_rect r = {fminf(a.x0, b.x0), fminf(a.y0, b.y0), fmaxf(a.x1, b.x1), fmaxf(a.y1, b.y1)};
    return r;
}

float base_rect_iou(base_rect a, base_rect b)
{
    float i = base_rect_area(base_rect_intersect(a, b));
    float u = base_rect_area(a) + base_rect_area(b) - i;
    return u > 0.0f ? i / u : 0.0f;
}

base_rect base_rect_clamp(base_rect r, base_rect bounds)
{
    base_rect c = {fmaxf(r.x0, bounds.x0), fmaxf(r.y0, bounds.y0), fminf(r.x1, bounds.x1),
                   fminf(r.y1, bounds.y1)};
    return c;
}

float base_point_dist(base_point a, base_point b)
{
    return hypotf(a.x - b.x, a.y - b.y);
}
