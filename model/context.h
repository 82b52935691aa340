/* model/context.h: the server's context window, where the server tells it
 * (issue 22): vLLM's GET /v1/models (max_model_len of the model), llama.cpp's
 * GET /props (n_ctx, or default_generation_settings.n_ctx), Ollama's POST
 * /api/show (num_ctx in the model's parameters; else Ollama's default of
 * MODEL_CONTEXT_OLLAMA_DEFAULT, since the OpenAI-compatible endpoint runs
 * with it and truncates a longer prompt without a word).
 *
 * The model client asks once per client, before its first request, and
 * then fits every request into the window or refuses it with a clear error
 * (model/llm.c).
 */
#ifndef FOVEA_MODEL_CONTEXT_H
#define FOVEA_MODEL_CONTEXT_H

#include <stddef.h>

#include "base/err.h"

#define MODEL_CONTEXT_OLLAMA_DEFAULT 4096L

/* Which server said it. */
typedef enum model_context_src {
    MODEL_CONTEXT_NONE = 0,
    MODEL_CONTEXT_VLLM,   /* /v1/models max_model_len */
    MODEL_CONTEXT_LLAMA,  /* /props n_ctx */
    MODEL_CONTEXT_OLLAMA  /* /api/show num_ctx (or the default) */
} model_context_src;

/* "vLLM /v1/models max_model_len", ... ("" for NONE). Static. Pure. */
const char *model_context_src_name(model_context_src s);

/* The window body (len bytes, one answer of src's endpoint) gives for
 * model, or 0 when it gives none. Pure; any thread; never fails. */
long model_context_parse(model_context_src src, const char *body, size_t len, const char *model);

/* Asks base_url's server (".../v1"; the other endpoints are on its root)
 * in turn: vLLM, llama.cpp, Ollama, each within timeout_ms, with key as a
 * bearer token (NULL: none). *ctx gets the window (0 when no server said),
 * *src who said it. Any thread (its own curl handles). Errors:
 * BASE_EINVAL, BASE_ENOMEM; a server that does not answer is not one. */
base_err model_context_discover(const char *base_url, const char *key, const char *model,
                                long timeout_ms, long *ctx, model_context_src *src, char *err);

#endif
