/* A C program over libqdcache.so for the integration tests, which must not
 * load the library themselves (one copy of the protocol code per process,
 * qdcache.h). It connects as any C program would: with no options set
 * unless --socket is given, so the environment decides where.
 *
 *   qdcache_c_probe [--socket S] version
 *   qdcache_c_probe [--socket S] compile FILE TARGET NAMESPACE FAST_KEY_HEX
 *   qdcache_c_probe [--socket S] lookup TARGET NAMESPACE RAW_FAST_KEY
 *
 * Prints the daemon's version or the artifact key (or "miss"). Exit 0, 3 on
 * a miss, 1 on an error (its code name and message on stderr). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qdcache/qdcache.h>

static int fail(const char* what, qdcache_status status) {
  fprintf(stderr, "%s: %s: %s\n", what, qdcache_status_name(status), qdcache_last_error());
  return 1;
}

/* The whole of a regular file, or NULL. */
static char* slurp(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  long length = -1;
  if (f != NULL && fseek(f, 0, SEEK_END) == 0) length = ftell(f);
  char* data = length >= 0 && fseek(f, 0, SEEK_SET) == 0 ? malloc((size_t)length + 1) : NULL;
  if (data != NULL && fread(data, 1, (size_t)length, f) != (size_t)length) {
    free(data);
    data = NULL;
  }
  if (f != NULL) fclose(f);
  *size = data != NULL ? (size_t)length : 0;
  return data;
}

static int print_result(qdcache_results* results) {
  const char* message = NULL;
  int code = qdcache_result_error(results, 0, &message);
  int rc = 0;
  if (code != QDCACHE_OK) {
    fprintf(stderr, "item: %s: %s\n", qdcache_status_name(code), message);
    rc = 1;
  } else if (qdcache_result_cache_status(results, 0) == QDCACHE_CACHE_MISS) {
    printf("miss\n");
    rc = 3;
  } else {
    printf("%s\n", qdcache_result_key(results, 0));
  }
  qdcache_results_free(results);
  return rc;
}

int main(int argc, char** argv) {
  int arg = 1;
  qdcache_options* options = NULL;
  qdcache_status s = qdcache_options_create(&options);
  if (s != QDCACHE_OK) return fail("options", s);
  if (argc > arg + 1 && strcmp(argv[arg], "--socket") == 0) {
    if ((s = qdcache_options_set(options, "socket", argv[arg + 1])) != QDCACHE_OK) return fail("socket", s);
    arg += 2;
  }
  qdcache_client* client = NULL;
  s = qdcache_connect(options, &client);
  qdcache_options_free(options);
  if (s != QDCACHE_OK) return fail("connect", s);
  int rc = 2;
  const char* command = argc > arg ? argv[arg] : "";
  if (strcmp(command, "version") == 0 && argc == arg + 1) {
    char* version = NULL;
    s = qdcache_daemon_version(client, &version);
    rc = s == QDCACHE_OK ? (printf("%s\n", version), 0) : fail("version", s);
    qdcache_string_free(version);
  } else if (strcmp(command, "compile") == 0 && argc == arg + 5) {
    size_t size = 0;
    char* ir = slurp(argv[arg + 1], &size);
    qdcache_request* request = NULL;
    qdcache_results* results = NULL;
    size_t index = 0;
    if (ir == NULL) {
      perror(argv[arg + 1]);
      rc = 1;
    } else if ((s = qdcache_request_create(&request)) != QDCACHE_OK ||
               (s = qdcache_request_add_kernel(request, ir, size, argv[arg + 2], &index)) != QDCACHE_OK ||
               (s = qdcache_request_set(request, index, "namespace", argv[arg + 3])) != QDCACHE_OK ||
               (s = qdcache_request_set(request, index, "fast-key", argv[arg + 4])) != QDCACHE_OK ||
               (s = qdcache_compile(client, request, &results)) != QDCACHE_OK) {
      rc = fail("compile", s);
    } else {
      rc = print_result(results);
    }
    qdcache_request_free(request);
    free(ir);
  } else if (strcmp(command, "lookup") == 0 && argc == arg + 4) {
    const void* keys[1] = {argv[arg + 3]};
    size_t sizes[1] = {strlen(argv[arg + 3])};
    qdcache_results* results = NULL;
    s = qdcache_lookup(client, argv[arg + 2], argv[arg + 1], keys, sizes, 1, 0, &results);
    rc = s == QDCACHE_OK ? print_result(results) : fail("lookup", s);
  } else {
    fprintf(stderr, "usage: %s [--socket S] version | compile FILE TARGET NS HEX | lookup TARGET NS RAW\n", argv[0]);
  }
  qdcache_client_free(client);
  return rc;
}
