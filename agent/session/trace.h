/* agent/session/trace.h: what a run leaves behind — trace.jsonl, step overlays and
 * report.html (ARCHITECTURE.md "Files a run leaves behind").
 *
 * OUT/trace.jsonl holds one JSON object per line: a "task" line first, one
 * "step" line per step as it finishes, and an "end" line. Lines are written
 * and flushed as they happen, so a run that fails or is killed keeps what it
 * did. OUT/steps/NNN.png is the overlay of step NNN: the marks the step chose
 * from, the chosen element, the cursor path, the pressed point and a caption.
 * OUT/report.html (agent/session/report.c) is rebuilt from those files alone.
 *
 * Secrets: records never hold a typed password (the runner masks
 * descriptions and scrubs every string with agent_scrub before writing), and
 * overlays paint over the fields passwords went into.
 *
 * An agent_trace is used by one thread (the runner's): every function taking
 * one runs there. A write that fails is reported as BASE_EIO naming the path;
 * the lines already flushed stay.
 */
#ifndef FOVEA_AGENT_SESSION_TRACE_H
#define FOVEA_AGENT_SESSION_TRACE_H

#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "base/err.h"
#include "base/geom.h"
#include "cascade/cascade.h"
#include "image/image.h"
#include "perception/probe.h"
#include "image/som.h"

/* Per-stage wall times of one step, in ms. Stages that ran in the prefetch
 * thread (capture, decode, vision, enrich) are those of the epoch the step
 * used, counted only when the step had to wait for that epoch. */
typedef struct agent_stage_ms {
    double gate, capture, decode, fingerprint, vision, overlay, snap, motion, dispatch, settle;
} agent_stage_ms;

#define AGENT_MAX_EXTRACT 24
#define AGENT_MAX_PATH 256
#define AGENT_MAX_MARKS 64

/* Everything known about one finished step. Plain value, caller-owned. */
typedef struct agent_step_record {
    int index;             /* 1-based */
    int total;             /* steps in the task */
    char action[32];       /* the task's action or the tool's name: "click", "send_keys" ... */
    char desc[200];        /* agent_step_describe, passwords masked */
    char intent[16];       /* snap intent: "any", "select", "expand" */
    char target_label[128];
    int target_index;
    int attempts;
    /* gate */
    char gate[16];         /* "procedural", "declarative", "-" when not used */
    char gate_why[160];
    int vision_lag;
    uint64_t epoch_id;
    int n_boxes;
    /* the box chosen from the epoch */
    int box_id;            /* [Vn], 0 when none */
    char box_label[128];
    char box_source[16];   /* "index", "label", "element", "dom-scan", "" */
    base_rect box;
    /* The snapper's answer for the element the call acted on, as
     * perc_snap_box returned it (snap.found 0 when no snap ran); phase
     * names the path ("A", "A-alt", "B", "P" = the procedural path's epoch
     * element, "-"; "" = no snap). */
    char phase[8];
    perc_snap snap;
    char snap_path[12];    /* procedural steps: "epoch" (the epoch's element, phase "P"),
                              "fallback" (its check failed: the snapper), "snapper" (by
                              agent_run_opts.procedural); "" for the others */
    base_point pt;         /* where the action happened: the press, else the snap's point */
    /* The hand's answer, as cascade_* returned it: tiers tried with their
     * timings, delivered, effects, message, alternatives, cursor path. A call
     * with two hand actions (open, then choose) keeps the last; a scroll
     * adds each wheel's path. */
    cascade_result hand;
    char reason[24];       /* the call's reason name (tool_reason_name / the hand's), "ok" */
    /* Nearest names ("try:" hints, agent__suggest) besides the hand's alternatives. */
    char alternatives[4][160];
    int n_alternatives;
    /* The marks of the epoch the step used, as the overlay names them:
     * "[V3] Cancel order" (label clipped, secrets masked); first 64. */
    char marks[AGENT_MAX_MARKS][64];
    int n_marks;
    /* results */
    int ok;
    char outcome[256];     /* one line: what happened or why it failed */
    char extracted[AGENT_MAX_EXTRACT][160];
    int n_extracted;
    char url[512];         /* page URL after the step */
    /* JavaScript dialogs the page showed during the step and how each was
     * answered ("confirm 'Delete 3 files?' dismissed"; "" when none), and the
     * tab the run moved to when the step opened one ("" when none). */
    char dialog[400];
    char new_tab[160];
    char overlay[32];      /* "steps/003.png", "" when none was written */
    int n_masked;          /* areas painted over in the overlay (secret fields, secret text) */
    double total_ms;
    agent_stage_ms ms;
} agent_step_record;

/* Task-level facts for the first line. Strings borrowed. */
typedef struct agent_trace_info {
    const char *task_name;
    const char *task_file;
    const char *url;
    const char *vision;  /* provider name */
    const char *browser; /* product string */
    int width, height;
    double scale;
    int humanize;
    uint64_t seed;
    int n_steps;
} agent_trace_info;

typedef struct agent_trace agent_trace;

/* Creates OUT (and OUT/steps), truncates OUT/trace.jsonl and writes the task
 * line. *out is the caller's (agent_trace_close); out_dir and info are
 * borrowed for the call. Any thread (the one that then owns the trace).
 * Errors: BASE_EIO naming the path, BASE_ENOMEM. */
base_err agent_trace_open(const char *out_dir, const agent_trace_info *info, agent_trace **out,
                          char *err);

/* Appends one step line and flushes it; r is borrowed. On the run's thread.
 * Errors: BASE_EIO, BASE_ENOMEM. */
base_err agent_trace_step(agent_trace *t, const agent_step_record *r, char *err);

/* Writes the end line (ok, the failing step or 0, total ms, a one-line
 * reason) and closes the file; t is freed, reason borrowed. NULL: no-op. On
 * the run's thread. Errors: none returned (a failed write only loses the end
 * line). */
void agent_trace_close(agent_trace *t, int ok, int failed_step, double total_ms,
                       const char *reason);

/* Like agent_trace_close for a run a stop signal ended: the end line has ok
 * false, "interrupted": signal ("SIGINT", ...) and the reason. t is freed
 * (the caller's pointer is then invalid); reason and signal are borrowed. On
 * the run's thread (the one that wrote the steps). Errors: none returned (the
 * run is ending; like agent_trace_close, a failed write only loses the end
 * line). NULL t: no-op. */
void agent_trace_close_interrupted(agent_trace *t, int failed_step, double total_ms,
                                   const char *reason, const char *signal);

/* Like agent_trace_close (signal NULL) or agent_trace_close_interrupted
 * (signal set), with extra's members added to the end line (a planner's final
 * state: the AND/OR tree, the candidate table, the answer). t is freed; extra
 * is taken (freed here, written or not; NULL = none). On the run's thread.
 * Errors: none returned, as agent_trace_close. NULL t: extra is freed. */
void agent_trace_close_extra(agent_trace *t, int ok, int failed_step, double total_ms,
                             const char *reason, const char *signal, cJSON *extra);

/* Output directory (borrowed for the trace's life). On the run's thread. */
const char *agent_trace_dir(const agent_trace *t);

/* Draws the overlay of record r onto img in place — marks (borrowed, CSS px;
 * each tagged with its label text as given, e.g. "[V3] Cancel order"), masks
 * (rects painted over: fields that received a password), the chosen element,
 * the cursor path, the pressed point and a caption — and writes it as
 * OUT/steps/NNN.png, setting r->overlay. On the run's thread. Errors: those
 * of image drawing (image/som.h), BASE_EIO. */
base_err agent_trace_overlay(agent_trace *t, img_image *img, const img_mark *marks,
                             int n_marks, const base_rect *masks, int n_masks,
                             agent_step_record *r, char *err);

/* Replaces, in place, every occurrence of each secret in s (a NUL terminated
 * buffer) with "********" as far as room allows, so a password echoed by a
 * page never reaches a file. Any thread. */
void agent_scrub(char *s, size_t cap, const char *const *secrets, int n_secrets);

/* Builds OUT/report.html from OUT/trace.jsonl and the PNGs in OUT/steps: one
 * self-contained page (styles, script and images inline) with a summary table
 * and every step. Can be re-run on any finished or partial output folder.
 * Any thread (it shares nothing with a live trace; run it after the trace is
 * closed to see the end line). Errors: BASE_EIO (missing/unreadable trace),
 * BASE_EPROTO (a malformed trace line, named by number), BASE_ENOMEM. */
base_err agent_report_write(const char *out_dir, char *err);

/* Appends one line of another kind (the agent's model calls: {"type":
 * "model", ...}) and flushes it. line is taken (freed here, written or not).
 * On the run's thread. Errors: BASE_EINVAL, BASE_EIO, BASE_ENOMEM. */
base_err agent_trace_line(agent_trace *t, cJSON *line, char *err);

#endif
