/* model/normalize.h: one request shape that every chat template accepts
 * (issue 22).
 *
 * The servers people run (vLLM, llama.cpp's server, Ollama) render the
 * OpenAI message list through the model's own chat template, and most
 * templates raise on shapes the hosted APIs accept: two system messages,
 * two user messages in a row, a user message right after tool results,
 * content null or a text-only parts array, tool messages without the
 * function name, several tool calls in one assistant turn, tool-call ids
 * that are not 9 alphanumerics, tool schemas with "type" arrays or oneOf, or
 * properties without a description. model_wire_messages and
 * model_wire_tools rewrite a request into the shape all of them take;
 * model/llm.c and the openai vision provider send nothing else.
 *
 * Two fallbacks, for servers that refuse even that (model/llm.c picks them
 * from a 400 that names the cause): MODEL_WIRE_SYSTEM_IN_USER folds the
 * system text into the first user message (templates without a system
 * role), MODEL_WIRE_TOOLS_IN_TEXT describes the tools in the system text
 * and writes tool calls and results as text (servers without tool calling;
 * model_wire_calls_from_text reads the calls back out of the reply).
 *
 * Pure functions on cJSON trees; any thread.
 */
#ifndef FOVEA_MODEL_NORMALIZE_H
#define FOVEA_MODEL_NORMALIZE_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "base/err.h"

/* Fallback flags for model_wire_messages. */
#define MODEL_WIRE_SYSTEM_IN_USER 1u /* no system role: its text opens the first user message */
#define MODEL_WIRE_TOOLS_IN_TEXT 2u  /* no tool calling: tools and calls as text */

/* The text an assistant turn carries when one has to be put between tool
 * results and the next user message. */
#define MODEL_WIRE_ACK "OK."

/* The wire form of a tool-call id: id itself when it is already 9 ASCII
 * letters and digits, else 9 of them derived from a hash of id (the same id
 * always gives the same result). out gets 10 bytes (NUL included). Pure;
 * any thread; cannot fail. */
void model_wire_id(const char *id, char out[10]);

/* A copy of messages (an OpenAI message array, borrowed) in the shape every
 * template accepts: at most one system message, first; after it a user
 * message, then strictly alternating user / assistant, an assistant turn
 * with one tool call followed by its one tool result (a batch is split into
 * call/result pairs in call order), consecutive user messages merged (their
 * images kept, in order), later system messages turned into user text, an
 * MODEL_WIRE_ACK assistant turn between a tool result and a user message,
 * "" for null content, text-only parts joined into a string, "name" on
 * every tool message, tool-call ids through model_wire_id. Keys starting
 * with '_' are dropped. flags: MODEL_WIRE_*; with MODEL_WIRE_TOOLS_IN_TEXT,
 * tools (borrowed, may be NULL) are described in the system text. *out is the
 * caller's (cJSON_Delete). Errors: BASE_EINVAL (not an array, a message
 * without a role; err says which), BASE_ENOMEM. Pure; any thread. */
base_err model_wire_messages(const cJSON *messages, const cJSON *tools, unsigned flags,
                             cJSON **out, char *err);

/* A copy of an OpenAI "tools" array (borrowed) with portable schemas:
 * "type" arrays become one type (["string","null"] -> "string") or an anyOf
 * of types, oneOf becomes anyOf, every property gets a description (its
 * name in words when it had none), every function a description. *out is the
 * caller's. Errors: BASE_EINVAL (not an array), BASE_ENOMEM. Pure; any
 * thread. */
base_err model_wire_tools(const cJSON *tools, cJSON **out, char *err);

/* MODEL_WIRE_TOOLS_IN_TEXT's reader: the tool calls a reply wrote as text
 * ({"tool": NAME, "arguments": {...}} objects, bare or in ``` fences),
 * as an OpenAI tool_calls array (ids by model_wire_id of the call's text)
 * into *calls (NULL when there is none), and the text without them (and
 * without the emptied fences and trailing space) into *rest (base_free;
 * NULL when nothing is left). text borrowed. Errors:
 * BASE_ENOMEM. Pure; any thread. */
base_err model_wire_calls_from_text(const char *text, cJSON **calls, char **rest, char *err);

#endif
