/* A kernel framework's view of qdcached, in C: compile LLVM IR for the CPU
 * through the daemon's cache, load the shared object that comes back into
 * this process and run it.
 *
 *   cc saxpy.c $(pkg-config --cflags --libs qdcache) -lm -o saxpy
 *   ./saxpy kernel.ll            # a function: void saxpy(long n, float a, const float* x, float* y)
 *
 * The daemon is the per-user one ($XDG_RUNTIME_DIR/qdcached.sock), started
 * on demand; QDCACHE_SOCKET names another socket (the library reads it). Exit status 0 when the
 * kernel's results are right. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qdcache/qdcache.h>

static int fail(const char* what, qdcache_status status) {
  fprintf(stderr, "saxpy: %s: %s: %s\n", what, qdcache_status_name(status), qdcache_last_error());
  return 1;
}

static char* read_file(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  if (f == NULL) return NULL;
  char* data = NULL;
  size_t used = 0, capacity = 0, n = 0;
  do {
    if (used == capacity) {
      capacity = capacity ? capacity * 2 : 65536;
      char* grown = realloc(data, capacity);
      if (grown == NULL) break;
      data = grown;
    }
    n = fread(data + used, 1, capacity - used, f);
    used += n;
  } while (n > 0);
  int bad = ferror(f);
  fclose(f);
  if (bad) {
    free(data);
    return NULL;
  }
  *size = used;
  return data;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s KERNEL.ll\n", argv[0]);
    return 2;
  }
  if (qdcache_abi_version() < QDCACHE_ABI_VERSION) {
    fprintf(stderr, "saxpy: libqdcache %s is older than this program's header\n", qdcache_version());
    return 1;
  }
  size_t ir_size = 0;
  char* ir = read_file(argv[1], &ir_size);
  if (ir == NULL) {
    perror(argv[1]);
    return 1;
  }

  qdcache_options* options = NULL;
  qdcache_status s = qdcache_options_create(&options);
  if (s != QDCACHE_OK) return fail("options", s);
  /* No socket set: the library takes $QDCACHE_SOCKET, else the per-user one. */
  if ((s = qdcache_options_set(options, "spawn", "1")) != QDCACHE_OK) return fail("spawn", s);
  qdcache_client* client = NULL;
  s = qdcache_connect(options, &client);
  qdcache_options_free(options);
  if (s != QDCACHE_OK) return fail("connect", s);

  /* One kernel in this batch; a framework would send all it needs at once. */
  qdcache_request* request = NULL;
  size_t index = 0;
  if ((s = qdcache_request_create(&request)) != QDCACHE_OK) return fail("request", s);
  if ((s = qdcache_request_add_kernel(request, ir, ir_size, "cpu:x86-64", &index)) != QDCACHE_OK) {
    return fail("kernel", s);
  }
  free(ir);
  if ((s = qdcache_request_add_entry(request, index, "saxpy")) != QDCACHE_OK) return fail("entry", s);
  qdcache_results* results = NULL;
  s = qdcache_compile(client, request, &results);
  qdcache_request_free(request);
  if (s != QDCACHE_OK) return fail("compile", s);

  const char* message = NULL;
  if ((s = qdcache_result_error(results, 0, &message)) != QDCACHE_OK) {
    fprintf(stderr, "saxpy: the kernel failed: %s: %s\n", qdcache_status_name(s), message);
    return 1;
  }
  const void* payload = NULL;
  size_t payload_size = 0;
  if ((s = qdcache_result_artifact(results, 0, NULL, &payload, &payload_size)) != QDCACHE_OK) {
    return fail("artifact", s);
  }
  printf("%s: %zu bytes, %s, key %.16s...\n", qdcache_result_target(results, 0), payload_size,
         qdcache_cache_status_name(qdcache_result_cache_status(results, 0)), qdcache_result_key(results, 0));

  qdcache_cpu_module* module = NULL;
  if ((s = qdcache_cpu_load(payload, payload_size, "saxpy", &module)) != QDCACHE_OK) return fail("load", s);
  qdcache_results_free(results); /* the module holds its own copy */
  void* address = NULL;
  if ((s = qdcache_cpu_symbol(module, "saxpy", &address)) != QDCACHE_OK) return fail("symbol", s);
  void (*saxpy)(long, float, const float*, float*) = (void (*)(long, float, const float*, float*))address;

  enum { kN = 1000 };
  static float x[kN], y[kN];
  for (int i = 0; i < kN; ++i) {
    x[i] = (float)i;
    y[i] = 1.0f;
  }
  saxpy(kN, 2.0f, x, y);
  int wrong = 0;
  for (int i = 0; i < kN; ++i) wrong += fabsf(y[i] - (2.0f * (float)i + 1.0f)) > 1e-6f;
  qdcache_cpu_module_free(module);
  qdcache_client_free(client);
  printf("saxpy on %d elements: %s\n", kN, wrong ? "WRONG" : "ok");
  return wrong ? 1 : 0;
}
