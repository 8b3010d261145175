#include "store/memory_release.h"

#include <malloc.h>

namespace qdcache::store {

// Both run on RocksDB's background threads, never on a request's path. The
// memtable a flush wrote out may still be referenced by a reader when the
// flush completes; it is then released by the next trim.
void ReleaseMemoryAfterFlush::OnFlushCompleted(rocksdb::DB*, const rocksdb::FlushJobInfo&) {
  ::malloc_trim(0);
}

void ReleaseMemoryAfterFlush::OnCompactionCompleted(rocksdb::DB*, const rocksdb::CompactionJobInfo&) {
  ::malloc_trim(0);
}

}  // namespace qdcache::store
