/* bench/bench_prefetch.c: what asynchronous prefetch and the gate save on a
 * 20-step scripted task (seed 002 §4.3 and §4.5: ≈30 % wall clock; 20 vision
 * calls become 5-7).
 *
 *   build/bench/bench_prefetch [think_ms] [vision_ms]
 *
 * The task is tests/fixtures/pages/vision/task.html (a three-section booking
 * form) driven by 20 scripted actions, 6 of which change the page. The
 * vision provider is the `openai` provider talking to the REPLAY server of
 * tests/harness/replay.h, which answers every request with the same recorded
 * boxes after vision_ms (default 900): the latency is the replay's, not a
 * model's. think_ms (default 1500) stands for the agent's LLM call between
 * actions, during which a prefetch can run. Three policies, same page, same
 * actions:
 *   naive     every step: vision (synchronous) -> think -> act
 *   prefetch  after every action schedule a pass; think; wait for it; act
 *   gate      Algorithm 2: after an action schedule a pass only when the
 *             page drifted from the current epoch; before the next action
 *             cascade_gate decides procedural (no wait) or waits for it
 * Actions are plain evaluates (the hand is not what is measured here).
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/clock.h"
#include "base/json_alloc.h"
#include "cascade/gate.h"
#include "harness.h"
#include "perception/prefetch.h"
#include "replay.h"

static const char *const steps[20] = {
    "document.getElementById('from').value = 'Oslo'",
    "document.getElementById('to').value = 'Rome'",
    "document.getElementById('date').value = '2025-06-01'",
    "document.getElementById('flex').click()",
    "document.getElementById('next1').click()", /* changes the page */
    "document.querySelectorAll('#pax .name')[0].value = 'Ada'",
    "document.getElementById('add').click()", /* changes the page */
    "document.querySelectorAll('#pax .name')[1].value = 'Grace'",
    "document.getElementById('add').click()", /* changes the page */
    "document.querySelectorAll('#pax .name')[2].value = 'Edsger'",
    "document.getElementById('cls').value = 'Business'",
    "document.getElementById('next2').click()",  /* changes the page */
    "document.getElementById('extras').click()", /* changes the page */
    "document.getElementById('bag').click()",
    "document.getElementById('seat').click()",
    "document.getElementById('email').value = 'ada@example.org'",
    "window.scrollTo(0, 0)",
    "document.getElementById('email').focus()",
    "document.getElementById('email').blur()",
    "document.getElementById('confirm').click()", /* changes the page */
};

/* Counts provider calls around the real provider. */
typedef struct counting {
    perc_vision base;
    perc_vision *inner;
    atomic_int calls;
} counting;

static base_err counting_detect(perc_vision *v, cdp_page *page, const img_image *shot,
                                const perc_vision_ctx *ctx, perc_detection *out, char *err)
{
    counting *c = (counting *)v;
    atomic_fetch_add(&c->calls, 1);
    return perc_vision_detect(c->inner, page, shot, ctx, out, err);
}

static void counting_destroy(perc_vision *v)
{
    (void)v; /* the bench owns both */
}

static const perc_vision_ops counting_ops = {"counting", counting_detect, counting_destroy, 1, NULL};

typedef enum policy { NAIVE, PREFETCH, GATE } policy;

static int run(policy pol, perc_vision *inner, int think_ms, double *wall_ms, int *calls,
               int *procedural, int *lagged)
{
    cdp_page *p = harness_open(1280, 800, 1, "/vision/task.html");
    if (!p)
        return -1;
    counting cv = {{&counting_ops, NULL}, inner, 0};
    perc_prefetch *pf = NULL;
    char err[256] = "";
    if (perc_prefetch_create(p, &cv.base, NULL, &pf, err)) {
        fprintf(stderr, "bench_prefetch: %s\n", err);
        cdp_page_close(p);
        return -1;
    }
    *procedural = *lagged = 0;
    double t0 = base_monotime_ms();
    /* The task starts with one look at the page. */
    uint64_t ticket = perc_prefetch_schedule(pf, NULL);
    perc_epoch_release(perc_prefetch_wait(pf, ticket, 30000));
    int rc = 0;
    for (int i = 0; i < 20 && rc == 0; i++) {
        if (pol == NAIVE) {
            if (i > 0) { /* the first step uses the initial look */
                ticket = perc_prefetch_schedule(pf, NULL);
                perc_epoch_release(perc_prefetch_wait(pf, ticket, 30000));
            }
            base_sleep_ms(think_ms);
        } else if (pol == PREFETCH) {
            perc_epoch_release(perc_prefetch_wait(pf, ticket, 30000));
        } else {
            cascade_gate_result g;
            if (cascade_gate(p, pf, ticket, 0, NULL, &g, err)) {
                rc = -1;
                break;
            }
            *procedural += g.mode == CASCADE_GATE_PROCEDURAL;
            *lagged += g.vision_lag;
            perc_epoch_release(g.epoch);
        }
        if (cdp_page_evaluate(p, steps[i], NULL, 10000, err)) {
            fprintf(stderr, "bench_prefetch: step %d: %s\n", i + 1, err);
            rc = -1;
            break;
        }
        if (pol == PREFETCH) {
            ticket = perc_prefetch_schedule(pf, NULL);
            base_sleep_ms(think_ms);
        } else if (pol == GATE) {
            /* Schedule only when the action moved the page off the epoch. */
            perc_fingerprint now;
            perc_epoch *cur = perc_prefetch_current(pf);
            if (perc_fingerprint_take(p, &now, err) == 0 && cur &&
                (!perc_fingerprint_equal(&now, &cur->fp) ||
                 now.mutation_count - cur->fp.mutation_count >= 25))
                ticket = perc_prefetch_schedule(pf, NULL);
            perc_epoch_release(cur);
            base_sleep_ms(think_ms);
        }
    }
    *wall_ms = base_monotime_ms() - t0;
    perc_prefetch_destroy(pf);
    *calls = atomic_load(&cv.calls);
    cdp_page_close(p);
    return rc;
}

/* Model text the replay answers with: a few boxes of the task page. */
static const char *const reply_text =
    "{\"page_type\": \"form\", \"boxes\": ["
    "{\"box_2d\": [20, 5, 50, 120], \"label\": \"From\", \"kind\": \"input\"},"
    "{\"box_2d\": [20, 130, 50, 245], \"label\": \"To\", \"kind\": \"input\"},"
    "{\"box_2d\": [20, 255, 50, 370], \"label\": \"Next\", \"kind\": \"button\"}]}";

int main(int argc, char **argv)
{
    base_json_alloc_install(); /* cJSON through base_malloc, as in every program */
    int think_ms = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 1500;
    int vision_ms = argc > 2 ? (int)strtol(argv[2], NULL, 10) : 900;
    if (think_ms < 0 || think_ms > 60000 || vision_ms < 0 || vision_ms > 60000) {
        fprintf(stderr, "usage: bench_prefetch [think_ms] [vision_ms]\n");
        return 2;
    }
    if (!harness_get()) {
        fprintf(stderr, "bench_prefetch: %s\n", harness_error());
        return 1;
    }
    replay *rp = NULL;
    char err[256] = "";
    if (replay_start(&rp, err)) {
        fprintf(stderr, "bench_prefetch: replay: %s\n", err);
        return 1;
    }
    replay_reply rr = {0};
    rr.content = reply_text;
    rr.delay_ms = vision_ms;
    rr.times = -1;
    perc_openai_config oc;
    perc_openai_config_init(&oc);
    oc.base_url = replay_base_url(rp);
    oc.model = "replay-model";
    perc_vision *v = NULL;
    if (replay_push(rp, &rr) || perc_vision_openai_create(&oc, &v, err)) {
        fprintf(stderr, "bench_prefetch: openai provider: %s\n", err);
        return 1;
    }
    printf("provider: openai -> REPLAY server answering after %d ms; think time %d ms\n",
           vision_ms, think_ms);
    const char *names[3] = {"naive", "prefetch", "gate"};
    double wall[3];
    for (int pol = 0; pol < 3; pol++) {
        int calls, proc, lag;
        if (run((policy)pol, v, think_ms, &wall[pol], &calls, &proc, &lag)) {
            fprintf(stderr, "bench_prefetch: %s run failed\n", names[pol]);
            return 1;
        }
        printf("%-8s wall %7.0f ms (%.0f ms/step)  vision calls %2d", names[pol], wall[pol],
               wall[pol] / 20, calls);
        if (pol == GATE)
            printf("  procedural %d/20, vision_lag %d", proc, lag);
        printf("\n");
    }
    printf("prefetch saves %.1f %% wall clock vs naive; gate %.1f %%\n",
           100 * (wall[0] - wall[1]) / wall[0], 100 * (wall[0] - wall[2]) / wall[0]);
    perc_vision_destroy(v);
    replay_destroy(rp);
    return 0;
}
