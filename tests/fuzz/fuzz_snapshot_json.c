/* tests/fuzz/fuzz_snapshot_json.c: the snapshot.json loader of `fovea
 * snaptest` (rec_snapshot_parse), then what replay does with whatever
 * loaded: a probe of a box derived from the input (scene hit tests at the 17
 * lattice points and candidate points) and snap_resolve. Input capped at
 * 64 KiB and the replay at 400 elements so that the hit-test ordering (cubic
 * in the number of elements under one point) stays fast per run.
 */
#include "fuzz.h"

#include <string.h>

#include "record/snapshot.h"

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
    if (n > (64u << 10))
        return 0;
    rec_snapshot s;
    char err[BASE_ERRBUF_SIZE] = "";
    if (rec_snapshot_parse((const char *)d, n, &s, err) != BASE_OK)
        return 0;
    if (s.scene.n > 0 && s.scene.n <= 400) {
        /* A box from the first element's rect, grown a little. */
        base_rect r = s.scene.cand[0].rect;
        base_rect box = {r.x0 - 3, r.y0 - 3, r.x1 + 3, r.y1 + 3};
        snap_probe probe;
        if (snap_scene_probe(&s.scene, box, &probe) == BASE_OK) {
            snap_intent in = {s.scene.cand[0].text, (snap_intent_kind)(n % 3)};
            snap_result res;
            snap_resolve(s.scene.cand, s.scene.n, &probe, &in, &res, NULL);
        }
        rec_snapshot_find(&s, s.scene.cand[0].xpath, s.scene.cand[0].frame_chain);
        rec_snapshot_within(&s, s.scene.n - 1, s.scene.cand[0].xpath, "");
    }
    rec_snapshot_fini(&s);
    return 0;
}
