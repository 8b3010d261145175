// The parts of DaemonProcess that talk to the daemon through the C++ client,
// in a file of their own: a test that links the support library without
// them (the C ABI test, whose libqdcache.so carries its own copy of the
// protocol code) does not pull the client and a second registration of
// qdcache.proto into the process.
#include "tests/support/daemon_process.h"

#include <optional>
#include <stdexcept>

namespace qdcache::testing {

namespace {

std::unique_ptr<client::Client> ConnectTo(const std::string& socket, std::optional<bool> lean) {
  client::ClientOptions o;
  o.socket_path = socket;
  o.timeout = std::chrono::seconds(120);
  o.lean = lean;
  auto c = client::Client::Connect(o);
  if (!c.ok()) throw std::runtime_error(c.status().ToString());
  return std::move(c).value();
}

}  // namespace

std::unique_ptr<client::Client> DaemonProcess::Connect() const { return ConnectTo(socket_, std::nullopt); }

std::unique_ptr<client::Client> DaemonProcess::ConnectGrpcOnly() const { return ConnectTo(socket_, false); }

v1::Stats StatsOf(const DaemonProcess& daemon) {
  auto s = daemon.Connect()->Stats();
  if (!s.ok()) throw std::runtime_error("stats: " + s.status().ToString());
  return *s;
}

v1::CompileResult LookupOne(const DaemonProcess& daemon, const v1::KernelDescriptor& d) {
  v1::LookupRequest request;
  v1::FastKeyQuery* q = request.add_queries();
  q->set_fast_key(d.fast_key());
  q->set_namespace_(d.namespace_());
  *q->mutable_target() = d.target();
  auto response = daemon.Connect()->Lookup(request);
  if (!response.ok()) throw std::runtime_error("lookup: " + response.status().ToString());
  if (response->results_size() != 1) throw std::runtime_error("lookup: expected one result");
  return response->results(0);
}

}  // namespace qdcache::testing
