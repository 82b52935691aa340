/* tests/harness/wire_check.h: the strict checker of what fovea sends a
 * model (issue 22), written apart from model/normalize.c on purpose: it
 * states the rules the chat templates of the open models enforce, so a
 * request that would raise in any of them fails a test here.
 *
 * The rules: at most one system message, and only first; after it a user
 * message; then strictly user -> assistant -> (user | tool after a call)
 * with a tool result only right after the assistant turn whose one call it
 * answers, and a user message never right after a tool result; content
 * present, never null, a string unless it carries an image; assistant
 * content a string; one tool call per assistant turn, its id 9 ASCII
 * letters or digits, its arguments a string; a tool message carries the
 * call's id and the function's "name"; every tool has a description, and
 * its schemas have no "type" arrays, no oneOf, and a description on every
 * property.
 *
 * Pure; any thread.
 */
#ifndef FOVEA_TESTS_WIRE_CHECK_H
#define FOVEA_TESTS_WIRE_CHECK_H

#include <cjson/cJSON.h>
#include <stddef.h>

/* 0 when request body root (a chat-completions request object) keeps every
 * rule, else -1 with the first broken rule in why (n bytes), naming the
 * message or tool ("messages[3]: a user message right after a tool
 * result"). */
int wire_check(const cJSON *root, char *why, size_t n);

#endif
