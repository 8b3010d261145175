// The Explain RPC for one descriptor: its explanation, or its artifact key
// (failing the test when the daemon cannot key it). Header-only because it
// asserts with Catch.
#pragma once

#include <catch2/catch.hpp>
#include <string>

#include "client/client.h"

namespace qdcache::testing {

inline v1::Explanation ExplainOne(client::Client& client, const v1::KernelDescriptor& d) {
  v1::ExplainRequest request;
  *request.add_kernels() = d;
  auto response = client.Explain(request);
  REQUIRE(response.ok());
  REQUIRE(response->explanations_size() == 1);
  return response->explanations(0);
}

inline std::string ExplainKey(client::Client& client, const v1::KernelDescriptor& d) {
  const v1::Explanation e = ExplainOne(client, d);
  INFO(e.error().message());
  REQUIRE_FALSE(e.has_error());
  return e.artifact_key();
}

}  // namespace qdcache::testing
