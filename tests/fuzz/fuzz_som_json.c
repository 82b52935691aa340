/* tests/fuzz/fuzz_som_json.c: boxes JSON parsing, then drawing whatever
 * parsed onto a small image (absurd coordinates, empty and huge boxes,
 * odd labels all reach the layout and compositor). Input capped at 256 KiB
 * and the draw at 2000 marks to keep each run fast.
 */
#include "fuzz.h"

#include <string.h>

#include "image/som.h"

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
    if (n > (256u << 10))
        return 0;
    img_mark *marks = NULL;
    int count = 0;
    char err[BASE_ERRBUF_SIZE] = "";
    int norm = n > 0 && (d[0] & 1);
    if (img_marks_parse_json((const char *)d, n, norm ? 640 : 0, norm ? 480 : 0, &marks, &count,
                              err) != BASE_OK)
        return 0;
    img_image img = {0};
    if (count <= 2000 && img_alloc(&img, 64, 48) == BASE_OK) {
        img_som_opts o;
        img_som_opts_init(&o);
        o.label_fmt = count % 2 ? IMG_LABEL_TEXT : IMG_LABEL_VID;
        img_som_draw(&img, marks, count, &o, NULL);
        img_fini(&img);
    }
    img_marks_free(marks, count);
    return 0;
}
