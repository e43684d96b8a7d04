/* server.h - kgen-serve's parts: the HTTP side (http.c, libmicrohttpd's
 * threads: one a connection) over the scheduler that one worker thread
 * steps (server.c). */
#ifndef KGS_SERVER_H
#define KGS_SERVER_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "api.h"
#include "kgs_sched.h"

enum { SERVER_CODES = 9 };

typedef struct server {
  kgs_sched_t *sched;
  api_model_t model;
  size_t max_body;    /* a request body's most bytes (413 past it) */
  unsigned timeout_s; /* a connection idle this long is closed */
  unsigned max_conns; /* connections at once */
  struct MHD_Daemon *daemon;
  pthread_mutex_t mu;               /* what follows */
  uint64_t responses[SERVER_CODES]; /* by http_codes[] */
  int live;                         /* responses still being written */
  int stopping;                     /* SIGTERM: no new requests */
  uint64_t next_id;
} server_t;

/* Listens on host:port (port 0: any free one, *out_port says which).
 * 0, or -1 with why. */
int http_start(server_t *s, const char *host, unsigned port, unsigned *out_port,
               char *why, size_t why_size);
/* Stops listening; connections open now go on. */
void http_quiesce(server_t *s);
/* Responses still being written. */
int http_live(server_t *s);
/* Closes every connection and joins their threads. */
void http_stop(server_t *s);

#endif /* KGS_SERVER_H */
