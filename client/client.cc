#include "client/client.h"

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include <fstream>
#include <sstream>
#include <vector>

#include "client/endpoint.h"
#include "client/lean_channel.h"
#include "client/socket_probe.h"
#include "common/paths.h"
#include "lean/protocol.h"

namespace qdcache::client {

Status FromGrpc(const grpc::Status& status) {
  if (status.ok()) return Status::Ok();
  return Status(static_cast<Code>(status.error_code()), status.error_message());
}

namespace {

// An empty CA would make gRPC trust the system's roots instead: refuse
// anything (a directory, an empty file) that is not PEM.
Expected<std::string> ReadPemFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("cannot read " + path);
  std::ostringstream s;
  s << in.rdbuf();
  if (!in.good() && !in.eof()) return NotFound("cannot read " + path);
  if (s.str().find("-----BEGIN ") == std::string::npos) {
    return InvalidArgument(path + " holds no PEM data");
  }
  return s.str();
}

bool UsesTls(const ClientOptions& o) {
  return !o.tls_ca_file.empty() || !o.tls_cert_file.empty() || !o.tls_key_file.empty();
}

// TCP's: insecure, or TLS (mutual with a client certificate) when asked for.
Expected<std::shared_ptr<grpc::ChannelCredentials>> ChannelCredentials(const ClientOptions& o,
                                                                       grpc::ChannelArguments* args) {
  if (!UsesTls(o)) return grpc::InsecureChannelCredentials();
  if (o.tls_cert_file.empty() != o.tls_key_file.empty()) {
    return InvalidArgument("a TLS client certificate and its key go together");
  }
  grpc::SslCredentialsOptions ssl;
  if (!o.tls_ca_file.empty()) {
    QDC_ASSIGN_OR_RETURN(ssl.pem_root_certs, ReadPemFile(o.tls_ca_file));
  }
  if (!o.tls_cert_file.empty()) {
    QDC_ASSIGN_OR_RETURN(ssl.pem_cert_chain, ReadPemFile(o.tls_cert_file));
    QDC_ASSIGN_OR_RETURN(ssl.pem_private_key, ReadPemFile(o.tls_key_file));
  }
  if (!o.tls_server_name.empty()) args->SetSslTargetNameOverride(o.tls_server_name);
  return grpc::SslCredentials(ssl);
}

// Every request's protocol header, whichever transport carries it.
void StampHeader(v1::RequestHeader* header, const std::string& client_name) {
  header->set_protocol_version(v1::PROTOCOL_VERSION_1);
  header->set_client(client_name);
}

// INTERNAL unless the daemon answered each of the `asked` items.
Status AllAnswered(int answered, int asked, const std::string& target, const char* items) {
  if (answered == asked) return Status::Ok();
  return Internal(target + " answered " + std::to_string(answered) + " of " + std::to_string(asked) + " " + items);
}

}  // namespace

Expected<std::unique_ptr<Client>> Client::Connect(ClientOptions options) {
  QDC_RETURN_IF_ERROR(ResolveEndpoint(options));
  std::string target;
  if (!options.address.empty()) {
    target = options.address;
  } else {
    if (options.socket_path.empty()) options.socket_path = DefaultSocketPath();
    // A socket in the shared /tmp fallback is trusted only if this user owns
    // the directory: the daemon's artifacts are code this process will run.
    if (InPrivateTmpDir(options.socket_path)) {
      QDC_RETURN_IF_ERROR(CheckPrivateDir(PrivateTmpDir(), /*create=*/false));
    }
    QDC_ASSIGN_OR_RETURN(const bool spawn, ResolveAutospawn(options.spawn, /*default_value=*/false));
    if (spawn) QDC_RETURN_IF_ERROR(EnsureDaemon(options.socket_path, options.spawn_options));
    target = "unix:" + options.socket_path;
  }
  grpc::ChannelArguments args;
  const int max = static_cast<int>(std::min<std::uint64_t>(options.max_message_bytes, INT32_MAX));
  args.SetMaxReceiveMessageSize(max);
  args.SetMaxSendMessageSize(max);
  if (options.address.empty()) options.token.clear();  // the uid is the identity there
  for (char c : options.token) {
    // gRPC refuses other bytes in metadata; say so without echoing the token.
    if (c < 0x21 || c > 0x7e) return InvalidArgument("the bearer token is not all visible ASCII");
  }
  std::function<std::shared_ptr<grpc::Channel>()> make_channel;
  if (options.address.empty()) {
    // The unix socket: insecure credentials, made with the channel on first
    // use (making them starts gRPC).
    if (UsesTls(options)) return InvalidArgument("TLS options need a TCP address (no TLS on the unix socket)");
    make_channel = [target, args] { return grpc::CreateCustomChannel(target, grpc::InsecureChannelCredentials(), args); };
  } else {
    // TCP: the TLS files are read now, so that Connect reports what is wrong with them.
    QDC_ASSIGN_OR_RETURN(std::shared_ptr<grpc::ChannelCredentials> credentials, ChannelCredentials(options, &args));
    std::shared_ptr<grpc::Channel> channel = grpc::CreateCustomChannel(target, credentials, args);
    if (!channel) return InvalidArgument("cannot create a channel to " + target);
    make_channel = [channel] { return channel; };
  }
  return std::unique_ptr<Client>(new Client(std::move(options), std::move(target), std::move(make_channel)));
}

Client::Client(ClientOptions options, std::string target,
               std::function<std::shared_ptr<grpc::Channel>()> make_channel)
    : options_(std::move(options)), target_(std::move(target)), make_channel_(std::move(make_channel)) {
  const char* env = std::getenv("QDCACHE_LEAN");
  const bool lean = options_.lean.value_or(env == nullptr || std::string_view(env) != "0");
  if (lean && options_.address.empty()) {
    lean_ = std::make_unique<LeanChannel>(options_.socket_path, target_, options_.timeout,
                                          options_.max_message_bytes);
  }
}

Client::~Client() = default;

const std::shared_ptr<grpc::Channel>& Client::channel() {
  std::call_once(channel_once_, [this] {
    channel_ = make_channel_();
    stub_ = v1::CompileCache::NewStub(channel_);
  });
  return channel_;
}

v1::CompileCache::Stub& Client::stub() {
  (void)channel();
  return *stub_;
}

Status Client::Failure(const grpc::Status& status) const {
  Status failed = FromGrpc(status).WithContext(target_);
  if (failed.code() != Code::kUnavailable || !options_.address.empty()) return failed;
  // Nobody at the socket: say so, and how to start a daemon, instead of gRPC's words.
  Expected<SocketState> state = ProbeSocket(options_.socket_path);
  if (!state.ok() || *state == SocketState::kListening) return failed;
  return Unavailable(NoDaemonMessage(options_.socket_path, *state == SocketState::kStale));
}

void Client::Authenticate(grpc::ClientContext* context, Deadline deadline) const {
  if (deadline == Deadline::kTimeout) {
    context->set_deadline(std::chrono::system_clock::now() + options_.timeout);
  }
  if (!options_.token.empty()) context->AddMetadata("authorization", "Bearer " + options_.token);
}

void Client::Prepare(grpc::ClientContext* context, v1::RequestHeader* header,
                     Deadline deadline) const {
  Authenticate(context, deadline);
  StampHeader(header, options_.client_name);
}

template <typename Response, typename Request, typename Method>
Expected<Response> Client::Call(Method method, Request request, Deadline deadline) {
  grpc::ClientContext context;
  Prepare(&context, request.mutable_header(), deadline);
  Response response;
  grpc::Status s = (stub().*method)(&context, request, &response);
  if (!s.ok()) return Failure(s);
  return response;
}

Expected<v1::CompileResponse> Client::Compile(v1::CompileRequest request, Deadline deadline) {
  if (lean_ != nullptr && lean_->enabled()) {
    StampHeader(request.mutable_header(), options_.client_name);
    const std::optional<std::chrono::milliseconds> wait =
        deadline == Deadline::kTimeout ? std::optional(options_.timeout) : std::nullopt;
    if (std::optional<Expected<v1::CompileResponse>> answer = lean_->Compile(request, wait)) {
      if (answer->ok()) {
        QDC_RETURN_IF_ERROR(AllAnswered((*answer)->results_size(), request.kernels_size(), target_, "compiles"));
      }
      return std::move(*answer);
    }
  }
  return Call<v1::CompileResponse>(&v1::CompileCache::Stub::Compile, std::move(request), deadline);
}

Expected<v1::LookupResponse> Client::Lookup(v1::LookupRequest request) {
  QDC_ASSIGN_OR_RETURN(LookupAnswer answer, LookupViews(std::move(request)));
  lean::InlinePayloads(answer.payloads, &answer.response);
  return std::move(answer.response);
}

Expected<LookupAnswer> Client::LookupViews(v1::LookupRequest request) {
  auto all_answered = [&](const v1::LookupResponse& response) {
    return AllAnswered(response.results_size(), request.queries_size(), target_, "lookups");
  };
  if (lean_ != nullptr && lean_->enabled()) {
    StampHeader(request.mutable_header(), options_.client_name);
    if (std::optional<Expected<LookupAnswer>> answer = lean_->Lookup(request)) {
      if (answer->ok()) QDC_RETURN_IF_ERROR(all_answered((*answer)->response));
      return std::move(*answer);
    }
  }
  if (request.queries_size() >= kStreamedLookupMin) {
    grpc::ClientContext context;
    Prepare(&context, request.mutable_header());
    std::unique_ptr<grpc::ClientReader<v1::LookupResponse>> reader =
        stub().LookupStream(&context, request);
    v1::LookupResponse all, part;
    all.mutable_results()->Reserve(request.queries_size());
    while (reader->Read(&part)) {
      for (v1::CompileResult& r : *part.mutable_results()) all.mutable_results()->Add(std::move(r));
    }
    const grpc::Status s = reader->Finish();
    // A daemon older than LookupStream: ask it the unary way.
    const bool unimplemented = s.error_code() == grpc::StatusCode::UNIMPLEMENTED && all.results_size() == 0;
    if (!unimplemented) {
      if (!s.ok()) return Failure(s);
      QDC_RETURN_IF_ERROR(all_answered(all));
      return LookupAnswer{std::move(all), {}, nullptr};
    }
  }
  QDC_ASSIGN_OR_RETURN(v1::LookupResponse response,
                       Call<v1::LookupResponse>(&v1::CompileCache::Stub::Lookup, std::move(request)));
  return LookupAnswer{std::move(response), {}, nullptr};
}

Expected<v1::Stats> Client::Stats(bool reset) {
  v1::GetStatsRequest request;
  request.set_reset(reset);
  QDC_ASSIGN_OR_RETURN(v1::GetStatsResponse response,
                       Call<v1::GetStatsResponse>(&v1::CompileCache::Stub::GetStats, std::move(request)));
  return response.stats();
}

Expected<v1::ExplainResponse> Client::Explain(v1::ExplainRequest request) {
  return Call<v1::ExplainResponse>(&v1::CompileCache::Stub::Explain, std::move(request));
}

Expected<v1::ExplainStoredResponse> Client::ExplainStored(v1::ExplainStoredRequest request) {
  return Call<v1::ExplainStoredResponse>(&v1::CompileCache::Stub::ExplainStored, std::move(request));
}

Expected<v1::ListResponse> Client::List(v1::ListRequest request) {
  return Call<v1::ListResponse>(&v1::CompileCache::Stub::List, std::move(request));
}

Expected<v1::InspectResponse> Client::Inspect(v1::InspectRequest request) {
  return Call<v1::InspectResponse>(&v1::CompileCache::Stub::Inspect, std::move(request));
}

Expected<v1::EvictResponse> Client::Evict(v1::EvictRequest request) {
  return Call<v1::EvictResponse>(&v1::CompileCache::Stub::Evict, std::move(request));
}

Expected<v1::VerifyResponse> Client::Verify() {
  return Call<v1::VerifyResponse>(&v1::CompileCache::Stub::Verify, v1::VerifyRequest());
}

Expected<v1::ShutdownResponse> Client::Shutdown() {
  return Call<v1::ShutdownResponse>(&v1::CompileCache::Stub::Shutdown, v1::ShutdownRequest());
}

Expected<v1::TargetsResponse> Client::Targets() {
  return Call<v1::TargetsResponse>(&v1::CompileCache::Stub::Targets, v1::TargetsRequest());
}

Status Client::Export(v1::ExportRequest request,
                      const std::function<Status(v1::ExportChunk& chunk)>& on_chunk) {
  grpc::ClientContext context;
  Prepare(&context, request.mutable_header());
  std::unique_ptr<grpc::ClientReader<v1::ExportChunk>> reader = stub().Export(&context, request);
  v1::ExportChunk chunk;
  Status failed;
  while (reader->Read(&chunk)) {
    failed = on_chunk(chunk);
    if (!failed.ok()) {
      context.TryCancel();
      break;
    }
  }
  const grpc::Status s = reader->Finish();
  if (!failed.ok()) return failed;
  return s.ok() ? Status::Ok() : Failure(s);
}

Expected<v1::ImportResponse> Client::Import(const std::function<Expected<bool>(v1::ImportChunk* chunk)>& next) {
  grpc::ClientContext context;
  Authenticate(&context);
  v1::ImportResponse response;
  std::unique_ptr<grpc::ClientWriter<v1::ImportChunk>> writer = stub().Import(&context, &response);
  Status failed;
  for (bool first = true;; first = false) {
    v1::ImportChunk chunk;
    Expected<bool> more = next(&chunk);
    if (!more.ok()) {
      failed = more.status();
      context.TryCancel();
      break;
    }
    if (first) StampHeader(chunk.mutable_header(), options_.client_name);
    // The first chunk always goes, so the daemon sees the header even for
    // an empty bundle.
    if (!*more && !first && chunk.entries_size() == 0) break;
    if (!writer->Write(chunk)) break;  // the daemon has answered early: Finish says why
    if (!*more) break;
  }
  if (failed.ok()) writer->WritesDone();
  const grpc::Status s = writer->Finish();
  if (!failed.ok()) return failed;
  if (!s.ok()) return Failure(s);
  return response;
}

Status Client::Ping(const std::string& service) {
  // grpc.health.v1.Health/Check with HealthCheckRequest{service = 1} (empty
  // for the daemon itself); the reply is HealthCheckResponse{status =
  // SERVING(1)}, i.e. bytes 08 01.
  grpc::GenericStub generic(channel());
  grpc::ClientContext context;
  Authenticate(&context);
  std::string encoded;
  if (!service.empty() && service.size() < 128) {
    encoded = std::string("\x0a", 1) + static_cast<char>(service.size()) + service;
  } else if (!service.empty()) {
    return InvalidArgument("health service name longer than 127 bytes");
  }
  // A default ByteBuffer is not a valid message; one (possibly empty) slice is.
  grpc::Slice message(encoded);
  grpc::ByteBuffer request(&message, 1);
  grpc::ByteBuffer response;
  grpc::Status result;
  // Driven on this thread through a queue of its own, as a blocking call is
  // (the callback API would run the call on threads gRPC starts for it).
  grpc::CompletionQueue queue;
  std::unique_ptr<grpc::GenericClientAsyncResponseReader> call =
      generic.PrepareUnaryCall(&context, "/grpc.health.v1.Health/Check", request, &queue);
  call->StartCall();
  call->Finish(&response, &result, &queue);
  void* tag = nullptr;
  bool ok = false;
  // Finish's one event; a unary call's outcome is in `result` either way.
  (void)queue.Next(&tag, &ok);
  queue.Shutdown();
  while (queue.Next(&tag, &ok)) {
  }
  if (!result.ok()) return Failure(result);
  std::vector<grpc::Slice> slices;
  (void)response.Dump(&slices);
  std::string bytes;
  for (const grpc::Slice& s : slices) bytes.append(reinterpret_cast<const char*>(s.begin()), s.size());
  if (bytes != std::string("\x08\x01", 2)) {
    return Unavailable(target_ + (service.empty() ? "" : " (" + service + ")") + " is not serving");
  }
  return Status::Ok();
}

}  // namespace qdcache::client
