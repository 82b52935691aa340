/* tests/record/test_loader.c: rec_snapshot_parse on good, corrupt and
 * hostile input (no browser). A bad snapshot.json must give a clear error
 * naming the field, never a crash, and leave the output untouched; a failed
 * allocation anywhere must surface as BASE_ENOMEM without leaks.
 */
#include <string.h>

#include "base/alloc.h"
#include "check.h"
#include "record/snapshot.h"

static const char GOOD[] =
    "{\"format\":\"fovea-snapshot/1\",\"url\":\"http://x/\",\"viewport\":[800,600],\"dsf\":2,"
    "\"scroll\":[0,40],\"frames\":[\"\",\"/html[1]/body[1]/iframe[1]\"],\"nodes\":["
    "{\"p\":-1,\"t\":\"html\",\"r\":[0,0,800,600],\"o\":0,\"x\":\"/html[1]\"},"
    "{\"p\":0,\"t\":\"button\",\"r\":[10,10,110,40],\"o\":1,\"x\":\"/html[1]/button[1]\","
    "\"text\":\"Go\",\"int\":1,\"cp\":1,\"ex\":0,\"hp\":1},"
    "{\"p\":0,\"t\":\"div\",\"r\":[0,0,800,600],\"o\":2,\"x\":\"/html[1]/div[1]\",\"pen\":1},"
    "{\"p\":0,\"t\":\"iframe\",\"r\":[200,200,400,300],\"o\":3,\"x\":\"/html[1]/body[1]/iframe[1]\"},"
    "{\"p\":3,\"t\":\"a\",\"r\":[210,210,260,230],\"o\":4,\"x\":\"/html[1]/a[1]\",\"f\":1,\"int\":1,"
    "\"clip\":[200,200,250,300]}]}";

static void good(void)
{
    rec_snapshot s;
    char err[BASE_ERRBUF_SIZE] = "";
    CHECK_EQ(rec_snapshot_parse(GOOD, strlen(GOOD), &s, err), BASE_OK);
    CHECK_EQ(s.scene.n, 5);
    CHECK_EQ(s.vw, 800);
    CHECK_EQ(s.dsf, 2.0);
    CHECK_EQ(s.scroll_y, 40.0);
    CHECK(strcmp(s.url, "http://x/") == 0);
    CHECK(strcmp(s.scene.cand[1].text, "Go") == 0);
    CHECK_EQ(s.scene.cand[1].aria_expanded, 0);
    CHECK_EQ(s.scene.cand[0].aria_expanded, -1);
    CHECK(s.scene.node[2].pointer_events_none);
    CHECK(strcmp(s.scene.cand[4].frame_chain, "/html[1]/body[1]/iframe[1]") == 0);
    /* The pointer-events:none overlay is transparent; the clip cuts the link. */
    int st[8], n = 0;
    CHECK_EQ(snap_scene_hit(&s.scene, (base_point){20, 20}, st, 8, &n), BASE_OK);
    CHECK(n == 2 && st[0] == 1 && st[1] == 0);
    CHECK_EQ(snap_scene_hit(&s.scene, (base_point){255, 220}, st, 8, &n), BASE_OK);
    CHECK(n == 2 && st[0] == 3);
    CHECK_EQ(rec_snapshot_find(&s, "/html[1]/a[1]", "/html[1]/body[1]/iframe[1]"), 4);
    CHECK_EQ(rec_snapshot_find(&s, "/html[1]/a[1]", ""), -1);
    CHECK(rec_snapshot_within(&s, 4, "/html[1]/body[1]/iframe[1]", ""));
    CHECK(rec_snapshot_within(&s, 1, "/html[1]", ""));
    CHECK(!rec_snapshot_within(&s, 0, "/html[1]/button[1]", ""));
    rec_snapshot_fini(&s);
    rec_snapshot_fini(&s); /* twice is harmless */
}

/* Replaces the first `from` in GOOD with `to` and expects an error whose
 * message contains `want`. */
static int bad_case(const char *from, const char *to, base_err want_e, const char *want)
{
    char buf[16384];
    const char *p = strstr(GOOD, from);
    if (!p)
        return 0;
    snprintf(buf, sizeof buf, "%.*s%s%s", (int)(p - GOOD), GOOD, to, p + strlen(from));
    rec_snapshot s;
    memset(&s, 0x5a, sizeof s);
    char err[BASE_ERRBUF_SIZE] = "";
    base_err e = rec_snapshot_parse(buf, strlen(buf), &s, err);
    unsigned char *b = (unsigned char *)&s;
    int untouched = 1;
    for (size_t i = 0; i < sizeof s; i++)
        untouched &= b[i] == 0x5a;
    if (e != want_e || !strstr(err, want) || !untouched) {
        printf("  %s -> %s: got %d '%s' (untouched %d)\n", from, to, e, err, untouched);
        return 0;
    }
    return 1;
}

static void corrupt(void)
{
    CHECK(bad_case("fovea-snapshot/1", "fovea-snapshot/9", BASE_EPROTO, "format"));
    CHECK(bad_case("\"r\":[10,10,110,40]", "\"r\":[10,10,110]", BASE_EPROTO, "nodes[1].r"));
    CHECK(bad_case("\"r\":[10,10,110,40]", "\"r\":[110,10,10,40]", BASE_EPROTO, "nodes[1].r"));
    CHECK(bad_case("\"r\":[10,10,110,40]", "\"r\":[10,10,\"a\",40]", BASE_EPROTO, "nodes[1].r"));
    CHECK(bad_case("\"r\":[10,10,110,40]", "\"r\":[10,10,1e300,40]", BASE_EPROTO, "nodes[1].r"));
    CHECK(bad_case("\"p\":0,\"t\":\"button\"", "\"p\":7,\"t\":\"button\"", BASE_EPROTO,
                   "nodes[1].p"));
    CHECK(bad_case("\"p\":0,\"t\":\"button\"", "\"p\":1,\"t\":\"button\"", BASE_EPROTO,
                   "nodes[1].p"));
    CHECK(bad_case("\"f\":1", "\"f\":2", BASE_EPROTO, "nodes[4].f"));
    CHECK(bad_case("\"int\":1,\"cp\"", "\"int\":2,\"cp\"", BASE_EPROTO, "nodes[1].int"));
    CHECK(bad_case("\"text\":\"Go\"", "\"text\":5", BASE_EPROTO, "nodes[1].text"));
    CHECK(bad_case("\"ex\":0", "\"ex\":0.5", BASE_EPROTO, "nodes[1].ex"));
    CHECK(bad_case("\"x\":\"/html[1]/button[1]\",", "", BASE_EPROTO, "nodes[1]"));
    CHECK(bad_case("\"viewport\":[800,600]", "\"viewport\":[800]", BASE_EPROTO, "viewport"));
    CHECK(bad_case("\"dsf\":2", "\"dsf\":-1", BASE_EPROTO, "dsf"));
    CHECK(bad_case("\"nodes\":[", "\"nodes\":{\"a\":[", BASE_EPROTO, "not valid JSON"));
    CHECK(bad_case("\"nodes\":[{", "\"nodes\":[7,{", BASE_EPROTO, "nodes[0]"));
    CHECK(bad_case("]}", "", BASE_EPROTO, "not valid JSON"));
    /* An over-long string is refused, not truncated silently. */
    char big[REC_SNAPSHOT_MAX_STR + 32];
    memset(big, 'a', sizeof big);
    big[0] = '"';
    big[sizeof big - 2] = '"';
    big[sizeof big - 1] = '\0';
    char to[sizeof big + 16];
    snprintf(to, sizeof to, "\"text\":%s", big);
    CHECK(bad_case("\"text\":\"Go\"", to, BASE_ETOOBIG, "nodes[1].text"));
}

static void enomem(void)
{
    /* Count the allocations of a good parse, then fail each in turn. */
    rec_snapshot s;
    char err[BASE_ERRBUF_SIZE] = "";
    base_alloc_fail_after(0);
    CHECK_EQ(rec_snapshot_parse(GOOD, strlen(GOOD), &s, err), BASE_OK);
    rec_snapshot_fini(&s);
    unsigned long total = base_alloc_fail_after(0);
    CHECK(total > 5);
    for (unsigned long k = 1; k <= total; k++) {
        base_alloc_fail_after(k);
        base_errclear(err);
        base_err e = rec_snapshot_parse(GOOD, strlen(GOOD), &s, err);
        base_alloc_fail_after(0);
        if (e == BASE_OK) {
            rec_snapshot_fini(&s);
            continue;
        }
        CHECK_MSG(e == BASE_ENOMEM, "allocation %lu: %d %s", k, e, err);
    }
}

int main(int argc, char **argv)
{
    static const check_case cases[] = {
        {"good", good},
        {"corrupt", corrupt},
        {"enomem", enomem},
        {NULL, NULL},
    };
    return check_main(argc, argv, cases);
}
