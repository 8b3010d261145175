/* qdcache.h: the C ABI of the qdcached client, libqdcache.so.1.
 *
 * For kernel frameworks in any language: connect to a qdcached daemon,
 * compile batches of LLVM IR kernels through its cache, look artifacts up by
 * fast key, read its statistics, and load what comes back (an ELF shared
 * object into this process, a cubin into a CUDA context, an HSA code object
 * onto an AMD GPU) and launch it.
 *
 * Conventions
 * - Opaque handles, created by a qdcache_*_create / connect / load function
 *   and released by the matching *_free (which accepts NULL).
 * - Buffers are (pointer, size) pairs; nothing is NUL-terminated unless it
 *   is a `const char*` documented as a string (UTF-8, NUL-terminated).
 * - Functions that can fail return a qdcache_status (the gRPC status codes:
 *   0 is OK). The message of the last call that returned one, on the calling
 *   thread, is qdcache_last_error() ("" after a success).
 * - Output parameters are cleared (NULL, 0) first, so a failed call never
 *   leaves a stale value in them.
 * - Pointers into a results handle stay valid until that handle is freed.
 *
 * Threads: a qdcache_client may be used from many threads at once. Options,
 * requests and results are plain data: one thread may change one at a time;
 * any number may read one that nobody changes. Modules may be used from any
 * thread but not freed while in use.
 *
 * What it loads: libqdcache.so.1 itself depends on nothing but the C
 * library. It looks artifacts up over the daemon's lean transport on a unix
 * socket, reads their results (status, kind, payload, key, target, PTX,
 * errors, dependencies) and loads and launches them. Every other call
 * (compiling, explaining, commands, statistics, qdcache_result_json, a
 * lookup the lean transport cannot carry: TCP, TLS, spawning, the "lean"
 * option off) goes to libqdcache-full.so.1, which
 * it loads on the first such call from the folder qdcache/ beside itself
 * (FAILED_PRECONDITION naming the file when that cannot be done).
 *
 * One per process: libqdcache-full.so uses the system's gRPC and protobuf,
 * with which its copy of the qdcache.v1 protocol code registers itself; a
 * process that calls it must not also link that code another way (the static
 * C++ client library of the qdcached build), or protobuf aborts at that
 * point on the duplicate.
 *
 * Versions: the ABI version is MAJOR.MINOR. A new MINOR adds functions or
 * option names and keeps every existing one; a new MAJOR changes the soname
 * (libqdcache.so.MAJOR). The symbols of ABI 1.0 to 1.5 carry the version
 * node QDCACHE_1; those added since, the node of their version (QDCACHE_1.6,
 * QDCACHE_1.7).
 * Compare qdcache_abi_version() with QDCACHE_ABI_VERSION at startup to check
 * that the library loaded is at least the one compiled against.
 */
#ifndef QDCACHE_QDCACHE_H_
#define QDCACHE_QDCACHE_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define QDCACHE_ABI_VERSION_MAJOR 1
#define QDCACHE_ABI_VERSION_MINOR 8
#define QDCACHE_ABI_VERSION ((QDCACHE_ABI_VERSION_MAJOR << 16) | QDCACHE_ABI_VERSION_MINOR)

/* ---- Versions, status codes and errors ---- */

/* The gRPC status codes (google.rpc.Code). */
typedef enum qdcache_status {
  QDCACHE_OK = 0,
  QDCACHE_CANCELLED = 1,
  QDCACHE_UNKNOWN = 2,
  QDCACHE_INVALID_ARGUMENT = 3,
  QDCACHE_DEADLINE_EXCEEDED = 4,
  QDCACHE_NOT_FOUND = 5,
  QDCACHE_ALREADY_EXISTS = 6,
  QDCACHE_PERMISSION_DENIED = 7,
  QDCACHE_RESOURCE_EXHAUSTED = 8,
  QDCACHE_FAILED_PRECONDITION = 9,
  QDCACHE_ABORTED = 10,
  QDCACHE_OUT_OF_RANGE = 11,
  QDCACHE_UNIMPLEMENTED = 12,
  QDCACHE_INTERNAL = 13,
  QDCACHE_UNAVAILABLE = 14,
  QDCACHE_DATA_LOSS = 15,
  QDCACHE_UNAUTHENTICATED = 16
} qdcache_status;

/* (MAJOR << 16) | MINOR of the library loaded. */
uint32_t qdcache_abi_version(void);
/* The qdcached release the library was built from, e.g. "0.1.0". */
const char* qdcache_version(void);
/* "OK", "INVALID_ARGUMENT", ...; "UNKNOWN" for a number that is no code. */
const char* qdcache_status_name(int status);
/* What went wrong in the last call on this thread that returned a
 * qdcache_status; "" when it returned QDCACHE_OK. Valid until the next such
 * call on this thread. */
const char* qdcache_last_error(void);

/* ---- Connecting ---- */

typedef struct qdcache_options qdcache_options;
typedef struct qdcache_client qdcache_client;

qdcache_status qdcache_options_create(qdcache_options** out);
/* Sets one option by name; INVALID_ARGUMENT for an unknown name or a value
 * it cannot take (the option keeps its old value). Names:
 *   socket           unix socket path
 *   address          HOST:PORT for TCP instead of the socket
 *                    Neither set: $QDCACHE_ADDR or $QDCACHE_SOCKET, else the
 *                    per-user daemon's socket ($XDG_RUNTIME_DIR/qdcached.sock),
 *                    else the system service's (/run/qdcached/qdcached.sock)
 *                    when only that one exists (since ABI 1.4; the CLI and
 *                    Python resolve it the same way, docs/integration.md)
 *   timeout          per-call deadline: "30s", "500ms", "5m" (default 5m)
 *   max-message-bytes  largest message: "256M" (default)
 *   client-name      shown in the daemon's log (default "qdcache-c")
 *   tls-ca, tls-cert, tls-key, tls-server-name   TLS over TCP (PEM files)
 *   token            bearer token for TCP (never sent over the socket;
 *                    default: $QDCACHE_TOKEN, else $QDCACHE_TOKEN_FILE's first
 *                    line; the tls- options default to $QDCACHE_TLS_CA, ...)
 *   spawn            "1"/"0": start a per-user daemon when none listens at
 *                    the socket (default: $QDCACHE_AUTOSPAWN, else off)
 *   daemon           the qdcached to spawn (default: $QDCACHED_BIN, the one
 *                    installed next to this library, then $PATH)
 *   spawn-idle-exit  the spawned daemon exits after this long idle ("10m")
 *   spawn-arg        one more flag for the spawned daemon (repeatable, e.g.
 *                    "--store=/path")
 *   lean             "1"/"0": lookups on a unix socket over the daemon's lean
 *                    transport (docs/protocol.md §1.1), gRPC where it cannot
 *                    carry them: the same answers, faster (default:
 *                    on unless $QDCACHE_LEAN is "0"; since ABI 1.8)     */
qdcache_status qdcache_options_set(qdcache_options* options, const char* name, const char* value);
void qdcache_options_free(qdcache_options* options);

/* Creates a client (options may be NULL: all defaults). Does not contact the
 * daemon unless spawning is on, when it first makes sure one listens.
 * The options may be freed afterwards. */
qdcache_status qdcache_connect(const qdcache_options* options, qdcache_client** out);
void qdcache_client_free(qdcache_client* client);
/* OK when the daemon answers its health check. With nobody at the unix
 * socket, UNAVAILABLE names it and says how to start a daemon. */
qdcache_status qdcache_ping(qdcache_client* client);
/* Since ABI 1.4. The daemon's version ("0.1.0") in *version, asked of the
 * daemon (so also a check that it answers); free it with
 * qdcache_string_free. */
qdcache_status qdcache_daemon_version(qdcache_client* client, char** version);
/* The daemon's counters as a JSON object (the Stats message of
 * proto/qdcache/v1/qdcache.proto, field names as written there, and since
 * ABI 1.4 "levels": {"alias"|"artifact"|"stage"|"remote": {"hits",
 * "misses", "hit_rate" (null before any lookup), "enabled"}}: what `qdcache
 * stats --json` prints); free it with qdcache_string_free. With `reset`
 * non-zero the daemon zeroes its counters after reading them (admin). */
qdcache_status qdcache_stats_json(qdcache_client* client, int reset, char** json);
void qdcache_string_free(char* string);

/* Since ABI 1.4. Runs an introspection or administration command, the
 * CLI's of the same name, with its arguments as a JSON object (`args_json`;
 * NULL or "" for none), and returns in *json the document `qdcache
 * <command> --json` prints (free with qdcache_string_free):
 *   "ping"     {}                                       the daemon's version
 *   "ls"       {"limit", "target", "namespace", "aliases", "key_prefix"}
 *   "inspect"  {"key": 64 hex digits or a unique prefix of 4+, "include_ptx"}
 *   "evict"    {"older_than": "7d", "dry_run"}          (admin)
 *   "trim"     {"max_size": "10G", "dry_run"}           (admin)
 *   "clear"    {"dry_run"}: every artifact and stage output (admin)
 *   "verify"   {}                                       (admin)
 *   "shutdown" {}: the daemon drains and exits          (admin)
 *   "targets"  {}: target families, SMs, CPUs, CPU features
 * INVALID_ARGUMENT for an unknown command or argument, or an ambiguous key
 * prefix (the message lists the candidates). */
qdcache_status qdcache_command_json(qdcache_client* client, const char* command, const char* args_json,
                                    char** json);

/* ---- Compiling ---- */

typedef struct qdcache_request qdcache_request;
typedef struct qdcache_results qdcache_results;

qdcache_status qdcache_request_create(qdcache_request** out);
void qdcache_request_free(qdcache_request* request);
/* Appends a kernel: LLVM IR, textual or bitcode, or another source kind
 * named by the option "kind" below, `ir_size` bytes (copied),
 * for `target` ("cuda:sm_90", "cpu:x86-64", "cpu:x86-64+avx2,+fma").
 * `*index` (may be NULL) receives its position, which the functions below
 * take and results come back in. */
qdcache_status qdcache_request_add_kernel(qdcache_request* request, const void* ir, size_t ir_size,
                                          const char* target, size_t* index);
/* Sets an option of kernel `index`. Names and values:
 *   every compile option of the protocol's catalogue, by its name
 *   (docs/protocol.md, CompileOptions: opt_level, fast_math, fmad, debug,
 *   lineinfo, max_registers, link_libdevice, ...), also spelt with '-' for
 *   '_' ("max-registers"), and "opt" for opt_level: a number, or for a
 *   boolean "1"/"0" (or true/false); INVALID_ARGUMENT names the known ones;
 *   no-store, recache: "1"/"0"; namespace NAME (the fast key's namespace);
 *   fast-key HEX: the fast key written as hex ("c0ffee01": 4 bytes), as the
 *   CLI's --fast-key and Python's str keys read it (since ABI 1.4);
 *   kind: what the kernel's bytes are, "llvm" (the default), "ptx" or
 *   "nvvm" (since ABI 1.2), "cuda" (CUDA C++ source; since ABI 1.3);
 *   alias-policy: what the daemon does when the fast key's alias names a
 *   different artifact (a fast-key conflict), "rebind" (the default),
 *   "strict" (the alias stays; the result's JSON carries "alias_conflict")
 *   or "off" (since ABI 1.5).
 * Request-wide: index is ignored for include-ptx "1"/"0" (return the PTX a
 * cubin was linked from). */
qdcache_status qdcache_request_set(qdcache_request* request, size_t index, const char* name,
                                   const char* value);
/* The name of compile option `index` (0, 1, ... as the protocol's catalogue
 * lists them: "opt_level", "fast_math", ...), or NULL past the last one.
 * Static storage. Since ABI 1.1. */
const char* qdcache_compile_option_name(size_t index);
/* The kernel's fast key (any bytes, copied): the daemon records an alias
 * from (you, namespace, target, fast key) to the artifact, for
 * qdcache_lookup. */
qdcache_status qdcache_request_set_fast_key(qdcache_request* request, size_t index, const void* key,
                                            size_t key_size);
/* A kernel the caller will launch (repeatable; none: all of them). */
qdcache_status qdcache_request_add_entry(qdcache_request* request, size_t index, const char* name);
/* A client-side input folded into the artifact key (frontend version...). */
qdcache_status qdcache_request_add_key_extra(qdcache_request* request, size_t index, const char* name,
                                             const char* value);
/* CUDA C++ (kind "cuda") only, since ABI 1.3. A header the source includes
 * as "name" (content copied; any bytes but NUL). */
qdcache_status qdcache_request_add_header(qdcache_request* request, size_t index, const char* name,
                                          const void* content, size_t content_size);
/* CUDA C++ only, since ABI 1.3. `what` is "name-expression" (an expression
 * whose lowered name the artifact returns: "scale<float>"), "define" ("NAME"
 * or "NAME=VALUE") or "undefine" ("NAME"); repeatable. */
qdcache_status qdcache_request_add_text(qdcache_request* request, size_t index, const char* what,
                                        const char* value);
/* Since ABI 1.5. A dependency of kernel `index` (which needs a fast key):
 * something the frontend read to make it (a source file, a config file),
 * `name` (UTF-8, opaque to the daemon, unique per kernel) with `digest`
 * (1 to 64 bytes, copied). Kept with the alias and returned by lookups, so
 * a lookup can be checked (qdcache_results_check_dependencies). */
qdcache_status qdcache_request_add_dependency(qdcache_request* request, size_t index, const char* name,
                                              const void* digest, size_t digest_size);
/* Since ABI 1.5. The SHA-256 of the file at `path` in digest[32]: the
 * digest qdcache_dependency_file_unchanged checks. */
qdcache_status qdcache_file_sha256(const char* path, unsigned char digest[32]);

/* Since ABI 1.4. The artifact key components of the request's one kernel,
 * or of its two and which components differ, as `qdcache explain --json`
 * prints them: {"explanations": [{"artifact_key", "components": {...},
 * "error"?}], "differing": [...]}. The request is left as it is. */
qdcache_status qdcache_explain_json(qdcache_client* client, const qdcache_request* request, char** json);

/* Number of kernels in the request. */
size_t qdcache_request_count(const qdcache_request* request);

/* Compiles every kernel of the request through the cache, in one call. The
 * request's kernels are moved into the call (it is empty afterwards and may
 * be reused). A non-OK status means the whole call failed (daemon
 * unreachable, deadline, refused); per-kernel outcomes are in the results. */
qdcache_status qdcache_compile(qdcache_client* client, qdcache_request* request, qdcache_results** out);

/* Looks artifacts up by fast key alone (no IR sent): `count` keys
 * (fast_keys[i], fast_key_sizes[i] bytes), all in namespace `ns` for
 * `target`. One result per key: ALIAS_HIT with the artifact, MISS, or
 * ERROR (e.g. a key longer than the daemon allows). */
qdcache_status qdcache_lookup(qdcache_client* client, const char* ns, const char* target,
                              const void* const* fast_keys, const size_t* fast_key_sizes, size_t count,
                              int include_ptx, qdcache_results** out);

/* ---- Results ---- */

typedef enum qdcache_cache_status {
  QDCACHE_CACHE_COMPILED = 1,   /* compiled for this request */
  QDCACHE_CACHE_HIT = 2,        /* served from the artifact store */
  QDCACHE_CACHE_COALESCED = 3,  /* joined an identical compile in flight */
  QDCACHE_CACHE_ALIAS_HIT = 4,  /* served through a fast-key alias */
  QDCACHE_CACHE_STAGE_HIT = 5,  /* compiled, reusing a cached stage (PTX) */
  QDCACHE_CACHE_MISS = 6,       /* lookup: nothing stored for the key */
  QDCACHE_CACHE_ERROR = 7       /* see qdcache_result_error */
} qdcache_cache_status;

typedef enum qdcache_artifact_kind {
  QDCACHE_ARTIFACT_CUBIN = 1,          /* CUDA ELF for the exact SM */
  QDCACHE_ARTIFACT_SHARED_OBJECT = 2,  /* ELF shared object for the CPU */
  QDCACHE_ARTIFACT_HSA_CODE_OBJECT = 3 /* AMDGPU ELF (since ABI 1.6) */
} qdcache_artifact_kind;

size_t qdcache_results_count(const qdcache_results* results);
/* A qdcache_cache_status; 0 for an index out of range. */
int qdcache_result_cache_status(const qdcache_results* results, size_t index);
/* "compiled", "hit", ... */
const char* qdcache_cache_status_name(int cache_status);
/* The item's error code and message (`*message` may be NULL to skip): OK and
 * "" unless the item failed. OUT_OF_RANGE for a bad index. */
qdcache_status qdcache_result_error(const qdcache_results* results, size_t index, const char** message);
/* The item's artifact: kind, and payload bytes (ELF) owned by `results`.
 * NOT_FOUND when the item has none (a miss or an error). */
qdcache_status qdcache_result_artifact(const qdcache_results* results, size_t index, int* kind,
                                       const void** payload, size_t* payload_size);
/* The PTX text a cubin was linked from, when include-ptx was asked
 * (`*size` 0 otherwise). */
qdcache_status qdcache_result_ptx(const qdcache_results* results, size_t index, const char** ptx,
                                  size_t* size);
/* The artifact's key (64 hex digits) and canonical target ("cuda:sm_90");
 * "" without an artifact or for a bad index. */
const char* qdcache_result_key(const qdcache_results* results, size_t index);
const char* qdcache_result_target(const qdcache_results* results, size_t index);
/* Everything about the item but the payload and PTX as a JSON object:
 * status, key, target, toolchain, entry points with their resource use
 * (since ABI 1.4 a figure the backend does not know, such as a CPU kernel's
 * register count, is left out instead of being -1), timings, compile log,
 * error; since ABI 1.5 "alias_conflict" (a fast-key conflict: the alias
 * named a different artifact; "changes" says which key components differ,
 * "warning" is set under the strict policy), "miss_reason" (a compile that
 * missed: what changed since the kernel's earlier artifact) and
 * "dependencies", each null / [] when absent. Free with qdcache_string_free. */
qdcache_status qdcache_result_json(const qdcache_results* results, size_t index, char** json);
void qdcache_results_free(qdcache_results* results);

/* Every item at once (since ABI 1.7): what a warm start of N artifacts reads
 * in one call instead of N calls of each qdcache_result_* function. */
typedef struct qdcache_item {
  int cache_status;     /* a qdcache_cache_status */
  int kind;             /* a qdcache_artifact_kind; 0 without an artifact */
  int error_code;       /* the item's qdcache_status: QDCACHE_OK unless it failed
                         * (its message: qdcache_result_error) */
  const void* payload;  /* the artifact's bytes, owned by the results; NULL without */
  size_t payload_size;
} qdcache_item;
/* Fills items[0 .. count) with the results' items [first, first + count).
 * `item_size` is sizeof(qdcache_item) as the caller was compiled with it
 * (the stride of `items`): a later ABI may append fields, which a library
 * older than the caller leaves as they were.
 * OUT_OF_RANGE when the range passes the end (nothing is written);
 * INVALID_ARGUMENT for an item_size smaller than ABI 1.7's. */
qdcache_status qdcache_results_items(const qdcache_results* results, size_t first, size_t count,
                                     qdcache_item* items, size_t item_size);

/* Results from a serialized qdcache.v1.LookupResponse received another way
 * (since ABI 1.7): the lean transport's (docs/protocol.md), whose artifacts
 * come without their payloads, which then read as empty. INVALID_ARGUMENT
 * when the bytes are not a LookupResponse. */
qdcache_status qdcache_results_parse(const void* response, size_t size, qdcache_results** out);

/* Dependencies (since ABI 1.5). An alias hit carries the dependencies its
 * compile declared, sorted by name: */
size_t qdcache_result_dependency_count(const qdcache_results* results, size_t index);
/* Dependency `i` of item `index`; *name and *digest point into the results. */
qdcache_status qdcache_result_dependency(const qdcache_results* results, size_t index, size_t i, const char** name,
                                         const void** digest, size_t* digest_size);
/* Whether dependency `name` still has `digest`: nonzero when it does. */
typedef int (*qdcache_dependency_check)(void* user, const char* name, const void* digest, size_t digest_size);
/* A qdcache_dependency_check for dependencies named by file path with the
 * file's SHA-256 (qdcache_file_sha256): nonzero while the file has it;
 * `user` is unused. */
int qdcache_dependency_file_unchanged(void* user, const char* name, const void* digest, size_t digest_size);
/* Checks every alias hit's dependencies with `check`; a hit one of whose
 * dependencies changed becomes a miss (QDCACHE_CACHE_MISS, no artifact), so
 * the caller compiles it again, which rebinds the alias. *stale (may be
 * NULL) receives how many did. */
qdcache_status qdcache_results_check_dependencies(qdcache_results* results, qdcache_dependency_check check,
                                                  void* user, size_t* stale);

/* ---- CPU: load a shared object from memory ---- */

typedef struct qdcache_cpu_module qdcache_cpu_module;

/* Loads an ELF shared object for this machine from memory (never written
 * to disk); `name_hint` names it in errors. INVALID_ARGUMENT for bytes that
 * are not one, FAILED_PRECONDITION with the loader's message otherwise. The
 * bytes are copied. Each load is an independent instance. */
qdcache_status qdcache_cpu_load(const void* elf, size_t size, const char* name_hint,
                                qdcache_cpu_module** out);
/* The address of a function or variable; NOT_FOUND when absent. Cast it to
 * the function's type to call it. Valid until the module is freed. */
qdcache_status qdcache_cpu_symbol(const qdcache_cpu_module* module, const char* name, void** address);
void qdcache_cpu_module_free(qdcache_cpu_module* module);

/* ---- CUDA: load a cubin and launch (libcuda.so.1 is opened at run time) ---- */

typedef struct qdcache_cuda_module qdcache_cuda_module;
typedef struct qdcache_cuda_buffer qdcache_cuda_buffer;

/* OK when the driver loads and a device exists; UNAVAILABLE saying why not. */
qdcache_status qdcache_cuda_available(void);
qdcache_status qdcache_cuda_device_count(int* count);
/* Compute capability as major*10+minor (90 for sm_90). */
qdcache_status qdcache_cuda_compute_capability(int device, int* capability);
/* A cubin (or PTX text) into the device's primary context; copied. */
qdcache_status qdcache_cuda_load(const void* image, size_t size, int device, qdcache_cuda_module** out);
void qdcache_cuda_module_free(qdcache_cuda_module* module);
/* Enqueues kernel `name` of the module on `stream` (NULL: the default
 * stream). `args` holds one pointer per kernel parameter, pointing at its
 * value (as cuLaunchKernel takes them). Asynchronous: errors inside the
 * kernel surface at qdcache_cuda_synchronize. NOT_FOUND for no such kernel. */
qdcache_status qdcache_cuda_launch(const qdcache_cuda_module* module, const char* name, const uint32_t grid[3],
                                   const uint32_t block[3], uint32_t shared_bytes, void** args, void* stream);
qdcache_status qdcache_cuda_synchronize(int device);
/* Device memory; freed by qdcache_cuda_buffer_free. */
qdcache_status qdcache_cuda_buffer_create(size_t size, int device, qdcache_cuda_buffer** out);
void qdcache_cuda_buffer_free(qdcache_cuda_buffer* buffer);
/* The device address (a CUdeviceptr); pass a pointer to a variable holding
 * it in a launch's args. */
uint64_t qdcache_cuda_buffer_address(const qdcache_cuda_buffer* buffer);
/* Synchronous copies of `size` bytes (at most the buffer's) to / from its start. */
qdcache_status qdcache_cuda_buffer_write(qdcache_cuda_buffer* buffer, const void* host, size_t size);
qdcache_status qdcache_cuda_buffer_read(const qdcache_cuda_buffer* buffer, void* host, size_t size);

/* ---- AMD GPUs: load an HSA code object and launch (since ABI 1.6) ----
 * The HIP runtime is opened at run time: $QDCACHE_HIP_LIBRARY (a path) when
 * set, else libamdhip64.so, libamdhip64.so.6 or libamdhip64.so.5; read once,
 * at the first qdcache_hip_* call. Without it, or without a GPU, calls fail
 * UNAVAILABLE naming the library, or saying "no AMD GPU" with HIP's error. */

typedef struct qdcache_hip_module qdcache_hip_module;
typedef struct qdcache_hip_buffer qdcache_hip_buffer;

/* OK when the runtime loads and a device exists; UNAVAILABLE saying why not. */
qdcache_status qdcache_hip_available(void);
qdcache_status qdcache_hip_device_count(int* count);
/* An HSA code object (QDCACHE_ARTIFACT_HSA_CODE_OBJECT: an AMDGPU ELF) onto
 * the device; copied. INVALID_ARGUMENT for bytes that are not one (a cubin,
 * a CPU shared object), once the runtime is there. */
qdcache_status qdcache_hip_load(const void* image, size_t size, int device, qdcache_hip_module** out);
void qdcache_hip_module_free(qdcache_hip_module* module);
/* Enqueues kernel `name` of the module on `stream` (a hipStream_t; NULL: the
 * null stream). `args` holds one pointer per kernel parameter, pointing at
 * its value (as hipModuleLaunchKernel's kernelParams). Asynchronous: errors
 * inside the kernel surface at qdcache_hip_synchronize. NOT_FOUND for no
 * such kernel. */
qdcache_status qdcache_hip_launch(const qdcache_hip_module* module, const char* name, const uint32_t grid[3],
                                  const uint32_t block[3], uint32_t shared_bytes, void** args, void* stream);
qdcache_status qdcache_hip_synchronize(int device);
/* Device memory; freed by qdcache_hip_buffer_free. */
qdcache_status qdcache_hip_buffer_create(size_t size, int device, qdcache_hip_buffer** out);
void qdcache_hip_buffer_free(qdcache_hip_buffer* buffer);
/* The device address (a hipDeviceptr_t); pass a pointer to a variable
 * holding it in a launch's args. */
uint64_t qdcache_hip_buffer_address(const qdcache_hip_buffer* buffer);
/* Synchronous copies of `size` bytes (at most the buffer's) to / from its start. */
qdcache_status qdcache_hip_buffer_write(qdcache_hip_buffer* buffer, const void* host, size_t size);
qdcache_status qdcache_hip_buffer_read(const qdcache_hip_buffer* buffer, void* host, size_t size);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* QDCACHE_QDCACHE_H_ */
