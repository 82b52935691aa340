/* cascade/input.h: the hand's other input verbs — keys and chords, hover,
 * double and right click, dropdowns, file inputs and the clipboard.
 *
 * They go through the same hand as cascade_click (cascade.h): trusted CDP
 * input on the page's top session, the humanized cursor, the same probe
 * (found / disabled / visible / covered / ambiguous) before anything is
 * pressed, the same effect check after it (cascade_result.effects) and the
 * same delivery rule: an action that reached the page is delivered
 * (cascade_result.delivered) and is never repeated by the hand or its
 * callers. Every function: the thread that owns the hand, never the cdp
 * service thread; *out always filled (reason, message, tiers tried,
 * alternatives) when out is non-NULL.
 */
#ifndef FOVEA_CASCADE_INPUT_H
#define FOVEA_CASCADE_INPUT_H

#include <stddef.h>

#include "cascade/cascade.h"

/* ---- keys (cascade/keys.c) ---- */

/* Modifier bits as CDP's Input.dispatchKeyEvent "modifiers" takes them. */
enum {
    CASCADE_MOD_ALT = 1,
    CASCADE_MOD_CTRL = 2,
    CASCADE_MOD_META = 4,
    CASCADE_MOD_SHIFT = 8,
};

/* One key press with its modifiers, as the browser's key events carry it. */
typedef struct cascade_key {
    char name[48];  /* canonical chord: "Control+Shift+K", "Enter", "a" */
    char key[24];   /* DOM KeyboardEvent.key: "Enter", "a", "A", "ArrowDown", "+" */
    char code[24];  /* DOM KeyboardEvent.code: "Enter", "KeyA", "Digit1" */
    int vk;         /* windowsVirtualKeyCode */
    char text[8];   /* text the press inserts ("" for none: named keys, chords) */
    int modifiers;  /* CASCADE_MOD_* held during the press */
} cascade_key;

/* Parses one chord ("Enter", "Shift+Tab", "Control+A", "Meta+Shift+K", "F5",
 * "a", "A", "Plus", "Control++") into *out. Names are case-insensitive (a
 * single character is taken as is: "A" is Shift+a); aliases: Ctrl,
 * Cmd/Command/Super/Win (Meta), Option (Alt), Esc, Del, Return,
 * Up/Down/Left/Right, Space, Plus. Letters under Control/Alt/Meta insert no
 * text. Errors: BASE_EINVAL with "unknown key 'Entr' (closest: Enter, End,
 * ...)", or an empty / modifier-only / doubled-modifier chord. Pure; any
 * thread. */
base_err cascade_key_parse(const char *chord, cascade_key *out, char *err);

/* Parses a space-separated list of chords ("Control+A Delete") into out[0..max)
 * and *n. Errors: those of cascade_key_parse naming the chord, BASE_EINVAL for
 * an empty list or more than max chords. Pure. */
base_err cascade_keys_parse(const char *spec, cascade_key *out, int max, int *n, char *err);

/* Presses keys[0..n) in order, `repeat` times (1..100), as trusted key events
 * (modifiers down, the key's keyDown with its text or rawKeyDown, keyUp,
 * modifiers up), humanized timing when the hand humanizes. With a target t
 * (non-NULL, xpath or point) the target is clicked first to focus it, through
 * cascade_click (a covered, disabled or missing target stops here with that
 * reason and nothing pressed); without, the keys go to whatever has focus.
 * Effects (value, focus, URL, mutation, selection) are watched in t's frame
 * (else the top document) for up to effect_ms: without a target, keys into a
 * field focused inside an iframe are delivered but their effect is not seen
 * ("no visible effect"); give the field as target to watch its frame. Once a
 * key event went out the call is delivered; the message names the element the
 * keydowns reached. Errors: BASE_EINVAL (NULL hand/out, n < 1, bad repeat),
 * transport errors (out-> delivered set when keys may have gone out). */
base_err cascade_keys(cascade_hand *h, const cascade_target *t, const cascade_key *keys, int n,
                      int repeat, cascade_result *out, char *err);

/* ---- press variants (cascade/click.c) ---- */

typedef enum cascade_press_kind {
    CASCADE_PRESS_CLICK = 0, /* cascade_click */
    CASCADE_PRESS_DOUBLE,    /* two presses (clickCount 1 then 2): dblclick */
    CASCADE_PRESS_RIGHT,     /* right button: contextmenu */
    CASCADE_PRESS_HOVER,     /* move onto the target and stay; nothing pressed */
} cascade_press_kind;

/* cascade_click's contract (probe, refusals, tiers, delivery, effects,
 * dead-click guard) with another kind of press. Double and right presses run
 * tiers 1 and 2 (there is no scripted equivalent, so no tier 3). A hover moves
 * the cursor onto the press point (humanized path) and leaves it there; it is
 * delivered when the element under the cursor is the target (or inside it), and
 * its effect is what the page did since the probe: a DOM change (a script
 * menu), or CASCADE_FX_SHOWN when the rendered text changed without one (a CSS
 * :hover flyout). Errors: as cascade_click. */
base_err cascade_press(cascade_hand *h, const cascade_target *t, cascade_press_kind kind,
                       cascade_result *out, char *err);

/* ---- dropdowns (cascade/dropdown.c) ---- */

typedef struct cascade_option {
    char *text;   /* visible text, whitespace folded (owned) */
    char *value;  /* value / data-value / id ("" when none; owned) */
    char *xpath;  /* custom listbox: the option's xpath in its frame (owned); NULL for native */
    int index;    /* position in the list */
    int selected, disabled;
} cascade_option;

typedef struct cascade_options {
    int native;            /* a <select> */
    int opened;            /* a custom listbox the call opened (and closed again) */
    int disabled;          /* a native <select> that is disabled (listed, not choosable) */
    char desc[128];        /* the control ("select#country", "div.combo 'Fruit'") */
    cascade_option *v;     /* base_malloc'd */
    int n;
} cascade_options;

/* Frees o's options (not o itself) and zeroes it. NULL: no-op. Any thread. */
void cascade_options_fini(cascade_options *o);

/* The options of dropdown t. A native <select> (or a label or wrapper holding
 * one): all options with text, value, selected, disabled, read without touching
 * it. An ARIA combobox / listbox: when its listbox is not open it is clicked
 * open (cascade_click: a covered control is refused), the visible options are
 * read, and the listbox is closed again with Escape when keep_open is 0
 * (res->delivered is then set: the page got input). *opts is the caller's
 * (cascade_options_fini), always initialised. res (may be NULL) gets the
 * opening click's outcome. Errors: BASE_EINVAL; transport errors. Not found /
 * not a dropdown / a listbox that did not open: BASE_OK with res reason
 * NOT_FOUND / NO_EFFECT and 0 options. */
base_err cascade_dropdown_options(cascade_hand *h, const cascade_target *t, int keep_open,
                                  cascade_options *opts, cascade_result *res, char *err);

/* How an option's text matched (cascade_option_match). */
enum { CASCADE_MATCH_NONE = 0, CASCADE_MATCH_PREFIX, CASCADE_MATCH_CASE, CASCADE_MATCH_EXACT };

/* The option whose text matches want best: exact, then equal ignoring case and
 * folded whitespace, then the texts that start with it (folded). *idx gets the
 * index into texts; *level the CASCADE_MATCH_* level. Returns the number of
 * candidates at the best level (0: none, > 1: ambiguous, *idx = the first).
 * Disabled options count too (the caller refuses them with a clear reason).
 * Pure; any thread. */
int cascade_option_match(const char *const *texts, int n, const char *want, int *idx, int *level);

/* Chooses the option of dropdown t whose visible text matches text
 * (cascade_option_match). Native <select>: set by script with the input/change
 * events a user's choice fires (tier 3 in tried[]). Custom: opened by a click,
 * the option pressed with cascade_click (trusted). No match: CASCADE_NOT_FOUND,
 * several equally good: CASCADE_AMBIGUOUS, a disabled option: CASCADE_DISABLED,
 * each with the candidates as alternatives and nothing chosen. Errors:
 * BASE_EINVAL, transport. */
base_err cascade_dropdown_select(cascade_hand *h, const cascade_target *t, const char *text,
                                 cascade_result *out, char *err);

/* ---- file inputs (cascade/upload.c) ---- */

/* Puts files paths[0..n) into the <input type=file> t stands for (the input, a
 * label for it, or a wrapper holding one) with DOM.setFileInputFiles, or, when
 * t holds no file input (a button that opens the chooser from script), clicks t
 * with file-chooser interception on (Page.setInterceptFileChooserDialog) and
 * fills the chooser that opens. Every path must be a readable regular file
 * (checked first: a missing one is BASE_EINVAL naming it, nothing set); several
 * files need a `multiple` input. names (may be NULL) gets the file names the
 * input holds afterwards, ", "-separated (names_n bytes). Errors: BASE_EINVAL,
 * transport errors; a target that opens no chooser: BASE_OK with
 * CASCADE_NO_EFFECT. */
base_err cascade_upload(cascade_hand *h, const cascade_target *t, const char *const *paths, int n,
                        char *names, size_t names_n, cascade_result *out, char *err);

/* ---- clipboard (cascade/clipboard.c) ---- */

/* The text on the clipboard, read in the page (navigator.clipboard, in the
 * hand's isolated world) after granting the top document's origin clipboard
 * read permission (Browser.grantPermissions). *text is base_malloc'd (caller
 * frees), "" when empty. Errors: BASE_EINVAL, the permission refused or the
 * read failed (BASE_EREMOTE naming why), transport errors. */
base_err cascade_clipboard_read(cascade_hand *h, char **text, char *err);

#endif
