/* base/http.h: HTTP vocabulary shared by the HTTP client code (the vision
 * endpoint's errors, perception/vision_openai.c) and the loopback server
 * (serve/httpd.c), which sit in different layers. */
#ifndef FOVEA_BASE_HTTP_H
#define FOVEA_BASE_HTTP_H

/* The standard reason phrase of an HTTP status code ("Not Found"; "Unknown"
 * when not listed). Static storage. Any thread. Errors: none. */
const char *base_http_reason(int status);

#endif
