/* image/som_json.c: boxes JSON for `fovea overlay` and tests.
 *
 * Accepts what people and models actually write: a bare array or an object
 * with "boxes", each box as x0/y0/x1/y1 or as "box":[ymin,xmin,ymax,xmax]
 * (the order vision models answer in, optionally 0..1000 normalised). The
 * input is untrusted, so it is size-capped before parsing, every field is
 * type-checked, and the first problem is reported with its JSON path
 * ("boxes[3].x1: expected a number") so the user can find it. Nothing is
 * returned unless the whole list is valid.
 */
#include <cjson/cJSON.h>
#include <string.h>

#include "base/alloc.h"
#include "base/num.h"
#include "image/som.h"

#define MAX_JSON (16u << 20)
#define MAX_BOXES 10000

void img_marks_free(img_mark *marks, int n)
{
    if (!marks)
        return;
    for (int i = 0; i < n; i++)
        base_free((void *)(uintptr_t)marks[i].label);
    base_free(marks);
}

static base_err get_num(const cJSON *o, const char *key, int i, double *v, int *present, char *err)
{
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(o, key);
    *present = f != NULL;
    if (!f)
        return BASE_OK;
    if (!cJSON_IsNumber(f))
        return base_errf(err, BASE_EPROTO, "boxes[%d].%s: expected a number", i, key);
    *v = f->valuedouble;
    return BASE_OK;
}

static float clampf(double v)
{
    /* Keeps absurd coordinates finite and within float range; drawing clips
     * them to the image anyway. */
    if (v > 1e7)
        return 1e7f;
    if (v < -1e7)
        return -1e7f;
    return (float)v;
}

static base_err parse_box(const cJSON *o, int i, int norm_w, int norm_h, img_mark *m, char *err)
{
    if (!cJSON_IsObject(o))
        return base_errf(err, BASE_EPROTO, "boxes[%d]: expected an object", i);
    double c[4] = {0, 0, 0, 0};
    const char *keys[4] = {"x0", "y0", "x1", "y1"};
    int have = 0;
    for (int k = 0; k < 4; k++) {
        int present = 0;
        base_err e = get_num(o, keys[k], i, &c[k], &present, err);
        if (e)
            return e;
        have += present;
    }
    const cJSON *box = cJSON_GetObjectItemCaseSensitive(o, "box");
    if (box && have == 0) {
        if (!cJSON_IsArray(box) || cJSON_GetArraySize(box) != 4)
            return base_errf(err, BASE_EPROTO,
                             "boxes[%d].box: expected 4 numbers [ymin,xmin,ymax,xmax]", i);
        double v[4];
        for (int k = 0; k < 4; k++) {
            const cJSON *it = cJSON_GetArrayItem(box, k);
            if (!cJSON_IsNumber(it))
                return base_errf(err, BASE_EPROTO, "boxes[%d].box[%d]: expected a number", i, k);
            v[k] = it->valuedouble;
        }
        double sx = norm_w > 0 ? norm_w / 1000.0 : 1.0;
        double sy = norm_h > 0 ? norm_h / 1000.0 : 1.0;
        c[0] = v[1] * sx;
        c[1] = v[0] * sy;
        c[2] = v[3] * sx;
        c[3] = v[2] * sy;
    } else if (have != 4) {
        for (int k = 0; k < 4; k++)
            if (!cJSON_GetObjectItemCaseSensitive(o, keys[k]))
                return base_errf(err, BASE_EPROTO,
                                 "boxes[%d].%s: missing (give x0,y0,x1,y1 or box)", i, keys[k]);
    }
    /* Corners given in either order describe the same box. */
    m->r.x0 = clampf(c[0] < c[2] ? c[0] : c[2]);
    m->r.x1 = clampf(c[0] < c[2] ? c[2] : c[0]);
    m->r.y0 = clampf(c[1] < c[3] ? c[1] : c[3]);
    m->r.y1 = clampf(c[1] < c[3] ? c[3] : c[1]);
    m->id = i + 1;
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(o, "id");
    if (id) {
        /* Range-checked before the conversion: (int)1e30 is undefined. */
        if (!cJSON_IsNumber(id) ||
            base_num_to_int_exact(id->valuedouble, -1000000000, 1000000000, &m->id) != BASE_OK)
            return base_errf(err, BASE_EPROTO,
                             "boxes[%d].id: expected an integer in -1000000000..1000000000", i);
    }
    const cJSON *style = cJSON_GetObjectItemCaseSensitive(o, "style");
    m->style = IMG_MARK_SOLID;
    if (style) {
        if (cJSON_IsString(style) && strcmp(style->valuestring, "dashed") == 0)
            m->style = IMG_MARK_DASHED;
        else if (!cJSON_IsString(style) || strcmp(style->valuestring, "solid") != 0)
            return base_errf(err, BASE_EPROTO, "boxes[%d].style: expected \"solid\" or \"dashed\"",
                             i);
    }
    const cJSON *label = cJSON_GetObjectItemCaseSensitive(o, "label");
    m->label = NULL;
    if (label && !cJSON_IsNull(label)) {
        if (!cJSON_IsString(label))
            return base_errf(err, BASE_EPROTO, "boxes[%d].label: expected a string", i);
        m->label = base_strdup(label->valuestring);
        if (!m->label)
            return base_errf(err, BASE_ENOMEM, "boxes[%d].label: out of memory", i);
    }
    return BASE_OK;
}

base_err img_marks_parse_json(const char *json, size_t len, int norm_w, int norm_h,
                               img_mark **marks, int *n, char *err)
{
    if (!json || !marks || !n)
        return base_errf(err, BASE_EINVAL, "boxes: no input");
    if (len > MAX_JSON)
        return base_errf(err, BASE_ETOOBIG, "boxes: %zu bytes exceed the %u byte cap", len,
                         MAX_JSON);
    cJSON *root = cJSON_ParseWithLength(json, len);
    if (!root) {
        const char *at = cJSON_GetErrorPtr();
        long off = at && at >= json && at <= json + len ? (long)(at - json) : -1;
        return base_errf(err, BASE_EPROTO, "boxes: invalid JSON near byte %ld", off);
    }
    const cJSON *arr = root;
    if (cJSON_IsObject(root)) {
        arr = cJSON_GetObjectItemCaseSensitive(root, "boxes");
        if (!arr) {
            cJSON_Delete(root);
            return base_errf(err, BASE_EPROTO,
                             "boxes: missing (expected an array or {\"boxes\":[...]})");
        }
    }
    if (!cJSON_IsArray(arr)) {
        cJSON_Delete(root);
        return base_errf(err, BASE_EPROTO, "boxes: expected an array");
    }
    int count = cJSON_GetArraySize(arr);
    if (count > MAX_BOXES) {
        cJSON_Delete(root);
        return base_errf(err, BASE_ETOOBIG, "boxes: %d boxes exceed the cap of %d", count,
                         MAX_BOXES);
    }
    img_mark *list = base_calloc(count > 0 ? (size_t)count : 1, sizeof(*list));
    if (!list) {
        cJSON_Delete(root);
        return base_errf(err, BASE_ENOMEM, "boxes: out of memory");
    }
    base_err e = BASE_OK;
    int i = 0;
    const cJSON *it = NULL;
    cJSON_ArrayForEach(it, arr)
    {
        e = parse_box(it, i, norm_w, norm_h, &list[i], err);
        if (e)
            break;
        i++;
    }
    cJSON_Delete(root);
    if (e) {
        img_marks_free(list, count);
        return e;
    }
    *marks = list;
    *n = count;
    return BASE_OK;
}
