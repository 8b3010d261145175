// Gives the memory a memtable flush frees back to the system.
//
// Memtables live in arena blocks of up to a few MiB. glibc serves the first
// such block with mmap, and when it is freed raises its mmap threshold to
// that size, so every later block comes from the heap; freed there, it stays
// in the process (reused, but counted in RSS, and spread over several malloc
// arenas). A daemon that flushes every few minutes for weeks would see its RSS
// creep by up to a memtable budget per arena. Pinning the threshold instead
// (mallopt M_MMAP_THRESHOLD) sends every large allocation to mmap, including
// the buffers of a large reply, which costs a page fault per 4 KiB on every
// call (measured: a 1,000-artifact Lookup 25% slower). So the heap keeps its
// dynamic threshold, and after each flush (or compaction, which frees its
// input blocks) malloc_trim returns the free pages of every arena.
#pragma once

#include <rocksdb/listener.h>

namespace qdcache::store {

class ReleaseMemoryAfterFlush final : public rocksdb::EventListener {
 public:
  void OnFlushCompleted(rocksdb::DB* db, const rocksdb::FlushJobInfo& info) override;
  void OnCompactionCompleted(rocksdb::DB* db, const rocksdb::CompactionJobInfo& info) override;
};

}  // namespace qdcache::store
