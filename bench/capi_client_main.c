/* qdcache-bench-capi: a warm start through the C ABI, from C, as a
 * framework written in C (or one binding libqdcache.so from another
 * language) makes it. qdcache-bench times it from spawn to exit.
 *
 *   qdcache-bench-capi SOCKET NAMESPACE TARGET KEYS
 *
 * Connects, gets every fast key of KEYS (hex, one per line) in one
 * qdcache_lookup and reads every item with one qdcache_results_items call;
 * all must hit. Prints {"items":N,"bytes":B}; exit 1 on a miss or error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qdcache/qdcache.h"

static int Fail(const char* what) {
  fprintf(stderr, "qdcache-bench-capi: %s: %s\n", what, qdcache_last_error());
  return 1;
}

static int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* The keys of `path` decoded into one buffer: *keys and *sizes per key. */
static int ReadKeys(const char* path, unsigned char** buffer, const void*** keys, size_t** sizes, size_t* count) {
  FILE* f = fopen(path, "r");
  if (f == NULL) return -1;
  size_t capacity = 1024, used = 0, n = 0, n_capacity = 64;
  *buffer = malloc(capacity);
  size_t* offsets = malloc(n_capacity * sizeof(size_t));
  *sizes = malloc(n_capacity * sizeof(size_t));
  char line[1024];
  while (fgets(line, sizeof(line), f) != NULL) {
    size_t len = strcspn(line, "\r\n");
    if (len == 0) continue;
    if (len % 2 != 0) {
      fclose(f);
      return -1;
    }
    if (used + len / 2 > capacity) {
      while (used + len / 2 > capacity) capacity *= 2;
      *buffer = realloc(*buffer, capacity);
    }
    if (n == n_capacity) {
      n_capacity *= 2;
      offsets = realloc(offsets, n_capacity * sizeof(size_t));
      *sizes = realloc(*sizes, n_capacity * sizeof(size_t));
    }
    offsets[n] = used;
    for (size_t i = 0; i < len; i += 2) {
      const int hi = HexValue(line[i]), lo = HexValue(line[i + 1]);
      if (hi < 0 || lo < 0) {
        fclose(f);
        return -1;
      }
      (*buffer)[used++] = (unsigned char)(hi * 16 + lo);
    }
    (*sizes)[n++] = len / 2;
  }
  fclose(f);
  *keys = malloc((n == 0 ? 1 : n) * sizeof(void*));
  for (size_t i = 0; i < n; ++i) (*keys)[i] = *buffer + offsets[i];
  free(offsets);
  *count = n;
  return n == 0 ? -1 : 0;
}

int main(int argc, char** argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: %s SOCKET NAMESPACE TARGET KEYS\n", argv[0]);
    return 2;
  }
  unsigned char* buffer = NULL;
  const void** keys = NULL;
  size_t* sizes = NULL;
  size_t count = 0;
  if (ReadKeys(argv[4], &buffer, &keys, &sizes, &count) != 0) {
    fprintf(stderr, "qdcache-bench-capi: cannot read hex keys from %s\n", argv[4]);
    return 1;
  }
  qdcache_options* options = NULL;
  qdcache_client* client = NULL;
  if (qdcache_options_create(&options) != QDCACHE_OK) return Fail("options");
  if (qdcache_options_set(options, "socket", argv[1]) != QDCACHE_OK) return Fail("socket");
  if (qdcache_connect(options, &client) != QDCACHE_OK) return Fail("connect");
  qdcache_options_free(options);
  qdcache_results* results = NULL;
  if (qdcache_lookup(client, argv[2], argv[3], keys, sizes, count, 0, &results) != QDCACHE_OK) {
    return Fail("lookup");
  }
  qdcache_item* items = malloc(count * sizeof(qdcache_item));
  if (qdcache_results_items(results, 0, count, items, sizeof(qdcache_item)) != QDCACHE_OK) return Fail("items");
  size_t bytes = 0;
  for (size_t i = 0; i < count; ++i) {
    if (items[i].cache_status != QDCACHE_CACHE_ALIAS_HIT || items[i].payload == NULL) {
      fprintf(stderr, "qdcache-bench-capi: fast key %zu missed\n", i);
      return 1;
    }
    bytes += items[i].payload_size;
  }
  printf("{\"items\":%zu,\"bytes\":%zu}\n", count, bytes);
  free(items);
  qdcache_results_free(results);
  qdcache_client_free(client);
  free(keys);
  free(sizes);
  free(buffer);
  return 0;
}
