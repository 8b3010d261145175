#include "tests/support/stampede.h"

#include <atomic>
#include <mutex>
#include <thread>

#include "tests/support/kernels.h"

namespace qdcache::testing {

v1::KernelDescriptor StampedeKernel(int n, int salt) {
  v1::KernelDescriptor d = Descriptor("cpu/saxpy.ll", "cpu:x86-64");
  d.set_ir("define i64 @value() {\n  ret i64 " + std::to_string(salt * 100000 + 1000 + n) + "\n}\n");
  d.set_fast_key("stampede-" + std::to_string(salt) + "-" + std::to_string(n));
  d.set_namespace_("stampede");
  return d;
}

StampedeResult RunStampede(const std::vector<DaemonProcess*>& daemons, int clients, int kernels, int salt,
                           const std::function<void(int)>& after_answer) {
  StampedeResult out;
  std::mutex mu;
  std::vector<std::thread> threads;
  for (std::size_t d = 0; d < daemons.size(); ++d) {
    for (int c = 0; c < clients; ++c) {
      threads.emplace_back([&, d, c] {
        std::unique_ptr<client::Client> client = daemons[d]->Connect();
        for (int i = 0; i < kernels; ++i) {
          const int n = (i * 7 + c * 5 + static_cast<int>(d) * 11) % kernels;
          v1::CompileResult r;
          try {
            r = CompileOne(*client, StampedeKernel(n, salt));
          } catch (const std::exception& e) {
            r.set_status(v1::CACHE_STATUS_ERROR);
            r.mutable_error()->set_message(e.what());
          }
          int answers = 0;
          {
            std::lock_guard lock(mu);
            answers = ++out.answers;
            if (r.status() == v1::CACHE_STATUS_COMPILED || r.status() == v1::CACHE_STATUS_HIT ||
                r.status() == v1::CACHE_STATUS_COALESCED) {
              out.payloads[n].insert(r.artifact().payload());
            } else if (out.failures++ == 0) {
              out.first_failure = r.error().message();
            }
          }
          if (after_answer) after_answer(answers);
        }
      });
    }
  }
  for (std::thread& t : threads) t.join();
  return out;
}

}  // namespace qdcache::testing
