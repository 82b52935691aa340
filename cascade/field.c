/* cascade/field.c: reading a form field without acting on it.
 *
 * One call to the page half's "field" operation (the same description
 * cascade_type starts from), so the caller sees the field the way typing
 * will: a wrapper resolves to the input inside it, a <label> to its
 * control. Used by the runner to decide whether what it types is a secret
 * and to learn how the field rewrote it.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "cascade/cascade.h"
#include "cascade/cascade_int.h"

void cascade_field_info_fini(cascade_field_info *f)
{
    if (!f)
        return;
    base_free(f->value);
    memset(f, 0, sizeof *f);
}

base_err cascade_field_read(cascade_hand *h, const cascade_target *t, cascade_field_info *out,
                            char *err)
{
    if (!out)
        return base_errf(err, BASE_EINVAL, "cascade_field_read: NULL out");
    memset(out, 0, sizeof *out);
    out->checked = -1;
    if (!h || !t || !t->xpath || !t->xpath[0])
        return base_errf(err, BASE_EINVAL, "cascade_field_read: NULL hand or no xpath");
    cJSON *a = cascade__xpath_arg(t->xpath);
    if (!a)
        return base_errf(err, BASE_ENOMEM, "out of memory");
    cJSON *fld = NULL;
    base_err e = cascade__call(h, t->frame_id ? t->frame_id : "", "field", a, 1, &fld, 10000, err);
    if (e)
        return e;
    out->found = cascade__bool(fld, "found");
    const cJSON *ck = cJSON_GetObjectItemCaseSensitive(fld, "checked");
    out->checked = cJSON_IsNumber(ck) ? ck->valueint : -1;
    const char *type = cascade__str(fld, "type");
    const char *ac = cascade__str(fld, "autocomplete");
    const char *v = cascade__str(fld, "value");
    snprintf(out->type, sizeof out->type, "%s", type ? type : "");
    snprintf(out->autocomplete, sizeof out->autocomplete, "%s", ac ? ac : "");
    if (v && !(out->value = base_strdup(v)))
        e = base_errf(err, BASE_ENOMEM, "out of memory");
    cJSON_Delete(fld);
    return e;
}
