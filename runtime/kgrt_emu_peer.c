/* kgrt_emu_peer.c - runs the emu device's launches on another emulator, in a
 * peer process: the command in $KGRT_EMU_PEER (through /bin/sh) reads one
 * request a line on its standard input and answers one line on its standard
 * output. It maps the device's memory (the memfd, at the same address) once:
 *   map PID FD BASE SIZE ARCH           -> ok
 * and runs each launch to completion:
 *   run ENTRY GRID BLOCK KERNARG RSRC2 LDS SCRATCH WAVE N U0 .. U(N-1)
 *                                       -> ok INSTRUCTIONS | err MESSAGE
 * (numbers in decimal; U: the user SGPRs' values). A way to check the
 * device's interpreter and kgen's code against an independent emulator
 * (bench/emu_peer.py drives tinygrad's); nothing else uses it.
 *
 * Needs kgrt_emu_mem. Gives kgrt_emu_peer_*. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kgrt_emu.h"

extern char **environ;

struct kgrt_emu_peer {
  kgrt_allocator_t alloc;
  pid_t pid;
  FILE *to, *from;
};

static int peer_reply(kgrt_emu_peer_t *p, char *line, size_t size, char *err,
                      size_t err_size) {
  if (fgets(line, (int)size, p->from) == NULL) {
    snprintf(err, err_size, "peer: no answer (the peer process ended)");
    return -1;
  }
  line[strcspn(line, "\n")] = '\0';
  if (strncmp(line, "ok", 2) == 0)
    return 0;
  snprintf(err, err_size, "peer: %s", line);
  return -1;
}

int kgrt_emu_peer_open(const char *command, kgrt_emu_mem_t *mem, const char *arch,
                       const kgrt_allocator_t *alloc, kgrt_emu_peer_t **out_peer,
                       char *err, size_t err_size) {
  *out_peer = NULL;
  int in[2], out[2];
  if (pipe(in) != 0)
    return snprintf(err, err_size, "peer: pipe: %s", strerror(errno)), -1;
  if (pipe(out) != 0) {
    close(in[0]), close(in[1]);
    return snprintf(err, err_size, "peer: pipe: %s", strerror(errno)), -1;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in[0], 0);
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  posix_spawn_file_actions_addclose(&fa, in[1]);
  posix_spawn_file_actions_addclose(&fa, out[0]);
  char *argv[] = {"/bin/sh", "-c", (char *)command, NULL};
  pid_t pid;
  int rc = posix_spawn(&pid, "/bin/sh", &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  close(in[0]);
  close(out[1]);
  if (rc != 0) {
    close(in[1]), close(out[0]);
    return snprintf(err, err_size, "peer: cannot start '%s': %s", command, strerror(rc)),
           -1;
  }
  kgrt_emu_peer_t *p = kgrt_calloc(alloc, 1, sizeof *p);
  if (p == NULL) {
    close(in[1]), close(out[0]);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    return snprintf(err, err_size, "out of host memory"), -1;
  }
  if (alloc != NULL)
    p->alloc = *alloc;
  p->pid = pid;
  p->to = fdopen(in[1], "w");
  p->from = fdopen(out[0], "r");
  if (p->to == NULL || p->from == NULL) {
    if (p->to == NULL)
      close(in[1]);
    if (p->from == NULL)
      close(out[0]);
    kgrt_emu_peer_close(p);
    return snprintf(err, err_size, "peer: fdopen failed"), -1;
  }
  fprintf(p->to, "map %d %d %llu %llu %s\n", (int)getpid(), kgrt_emu_mem_fd(mem),
          (unsigned long long)kgrt_emu_mem_base(mem),
          (unsigned long long)kgrt_emu_mem_size(mem), arch);
  fflush(p->to);
  char line[512];
  if (peer_reply(p, line, sizeof line, err, err_size) != 0) {
    kgrt_emu_peer_close(p);
    return -1;
  }
  *out_peer = p;
  return 0;
}

void kgrt_emu_peer_close(kgrt_emu_peer_t *p) {
  if (p == NULL)
    return;
  if (p->to != NULL)
    fclose(p->to); /* the peer sees the end of its input and exits */
  if (p->from != NULL)
    fclose(p->from);
  waitpid(p->pid, NULL, 0);
  kgrt_allocator_t alloc = p->alloc;
  kgrt_free(&alloc, p);
}

int kgrt_emu_peer_run(kgrt_emu_peer_t *p, const kgrt_emu_launch_t *l, uint64_t *out_insts,
                      char *err, size_t err_size) {
  const kgrt_emu_kernel_t *k = l->kernel;
  uint32_t user[16];
  const uint32_t n = kgrt_emu_user_sgprs(k, l->kernarg, user);
  fprintf(p->to, "run %llu %u %u %llu %u %u %u %u %u", (unsigned long long)k->entry,
          l->grid_x, l->block_x, (unsigned long long)l->kernarg, k->rsrc2, k->lds_bytes,
          k->scratch_bytes, k->wave_size, n);
  for (uint32_t i = 0; i < n; ++i)
    fprintf(p->to, " %u", user[i]);
  fputc('\n', p->to);
  fflush(p->to);
  char line[1024];
  if (peer_reply(p, line, sizeof line, err, err_size) != 0)
    return -1;
  *out_insts = strtoull(line + 2, NULL, 10);
  return 0;
}
