// Every case of the ArtifactStore conformance suite, for the factories named
// by QDCACHE_STORE_CONFORMANCE_FACTORIES. Include from exactly one .cc per
// test binary; see store_conformance.h.
#pragma once

#ifndef QDCACHE_STORE_CONFORMANCE_FACTORIES
#error "define QDCACHE_STORE_CONFORMANCE_FACTORIES as the factory types first (store_conformance.h)"
#endif

#include "tests/unit/store/conformance/aliases.h"
#include "tests/unit/store/conformance/concurrency.h"
#include "tests/unit/store/conformance/corruption.h"
#include "tests/unit/store/conformance/eviction.h"
#include "tests/unit/store/conformance/listing.h"
#include "tests/unit/store/conformance/records.h"
#include "tests/unit/store/conformance/snapshots.h"
#include "tests/unit/store/conformance/stages.h"
