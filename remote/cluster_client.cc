#include "remote/cluster_client.h"

#include <algorithm>
#include <charconv>

#include "remote/redis_commands.h"

namespace qdcache::remote {
namespace {

struct Redirect {
  bool moved = false;  // MOVED; otherwise ASK
  int slot = 0;
  Endpoint node;
};

// "MOVED 3999 127.0.0.1:6381" / "ASK 3999 :6381" (an empty host: the node
// that answered).
bool ParseRedirect(std::string_view text, const Endpoint& from, Redirect* out) {
  if (text.starts_with("MOVED ")) {
    out->moved = true;
    text.remove_prefix(6);
  } else if (text.starts_with("ASK ")) {
    out->moved = false;
    text.remove_prefix(4);
  } else {
    return false;
  }
  const std::size_t space = text.find(' ');
  if (space == std::string_view::npos) return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + space, out->slot);
  if (ec != std::errc() || end != text.data() + space || out->slot < 0 || out->slot >= kSlotCount) {
    return false;
  }
  const std::string_view address = text.substr(space + 1);
  const std::size_t colon = address.rfind(':');
  if (colon == std::string_view::npos) return false;
  const std::string_view port = address.substr(colon + 1);
  auto [pend, pec] = std::from_chars(port.data(), port.data() + port.size(), out->node.port);
  if (pec != std::errc() || pend != port.data() + port.size()) return false;
  out->node.host = colon == 0 ? from.host : std::string(address.substr(0, colon));
  return true;
}

}  // namespace

ClusterClient::ClusterClient(std::vector<Endpoint> seeds, ConnectOptions options)
    : seeds_(std::move(seeds)), pool_(std::move(options)) {
  slots_.fill(-1);
}

Expected<Reply> ClusterClient::Execute(std::string_view key, const std::vector<std::string>& argv) {
  const int slot = KeySlot(key);
  std::optional<Endpoint> node = NodeFor(slot);
  if (!node) return Unavailable("redis cluster: no node serves slot " + std::to_string(slot));
  QDC_ASSIGN_OR_RETURN(Reply reply, RunOn(*node, argv, /*asking=*/false));
  return FollowRedirects(slot, *node, std::move(reply), argv, 0);
}

std::vector<Expected<Reply>> ClusterClient::ExecuteMany(const std::vector<KeyedCommand>& commands) {
  std::vector<Expected<Reply>> results(commands.size(), Expected<Reply>(Unavailable("not run")));
  struct Batch {
    Endpoint node;
    std::vector<std::size_t> indexes;
    std::vector<int> slots;
  };
  std::vector<Batch> batches;
  for (std::size_t i = 0; i < commands.size(); ++i) {
    const int slot = KeySlot(commands[i].key);
    std::optional<Endpoint> node = NodeFor(slot);
    if (!node) {
      results[i] = Unavailable("redis cluster: no node serves slot " + std::to_string(slot));
      continue;
    }
    auto batch = std::find_if(batches.begin(), batches.end(),
                              [&](const Batch& b) { return b.node == *node; });
    if (batch == batches.end()) batch = batches.insert(batches.end(), Batch{*node, {}, {}});
    batch->indexes.push_back(i);
    batch->slots.push_back(slot);
  }
  for (const Batch& batch : batches) {
    std::vector<std::vector<std::string>> argvs;
    argvs.reserve(batch.indexes.size());
    for (std::size_t i : batch.indexes) argvs.push_back(commands[i].argv);
    Expected<std::vector<Reply>> replies = PipelineOn(batch.node, argvs);
    if (!replies.ok()) {
      for (std::size_t i : batch.indexes) results[i] = replies.status();
      continue;
    }
    for (std::size_t j = 0; j < batch.indexes.size(); ++j) {
      const std::size_t i = batch.indexes[j];
      results[i] = FollowRedirects(batch.slots[j], batch.node, std::move((*replies)[j]),
                                   commands[i].argv, 0);
    }
  }
  return results;
}

Expected<Reply> ClusterClient::RunOn(const Endpoint& node, const std::vector<std::string>& argv,
                                     bool asking) {
  Expected<NodePool::Lease> conn = pool_.Acquire(node);
  if (!conn.ok()) {
    MarkStale();
    return conn.status();
  }
  Expected<Reply> reply = Reply{};
  // ASKING holds for the next command on this connection only.
  if (asking) reply = (*conn)->Command({"ASKING"});
  if (reply.ok() && !reply->is_error()) reply = (*conn)->Command(argv);
  if (!reply.ok()) {
    pool_.DropIdle(node);
    MarkStale();
  }
  return reply;
}

Expected<std::vector<Reply>> ClusterClient::PipelineOn(
    const Endpoint& node, const std::vector<std::vector<std::string>>& argvs) {
  Expected<NodePool::Lease> conn = pool_.Acquire(node);
  if (!conn.ok()) {
    MarkStale();
    return conn.status();
  }
  Expected<std::vector<Reply>> replies = (*conn)->Pipeline(argvs);
  if (!replies.ok()) {
    pool_.DropIdle(node);
    MarkStale();
  }
  return replies;
}

Expected<Reply> ClusterClient::FollowRedirects(int slot, Endpoint node, Reply reply,
                                               const std::vector<std::string>& argv,
                                               int redirects) {
  for (;; ++redirects) {
    if (!reply.is_error()) return reply;
    Redirect redirect;
    if (!ParseRedirect(reply.str, node, &redirect)) return ReplyError(node, reply);
    if (redirects >= kMaxRedirects) {
      return Unavailable("redis cluster: more than " + std::to_string(kMaxRedirects) +
                         " redirects for slot " + std::to_string(slot));
    }
    if (redirect.moved) {
      ++moved_;
      std::lock_guard lock(mu_);
      auto it = std::find(nodes_.begin(), nodes_.end(), redirect.node);
      if (it == nodes_.end()) it = nodes_.insert(nodes_.end(), redirect.node);
      slots_[redirect.slot] = static_cast<std::int16_t>(it - nodes_.begin());
    } else {
      ++ask_;
    }
    node = redirect.node;
    QDC_ASSIGN_OR_RETURN(reply, RunOn(node, argv, /*asking=*/!redirect.moved));
  }
}

Status ClusterClient::RefreshSlots() {
  std::lock_guard refresh_lock(refresh_mu_);
  std::vector<Endpoint> candidates;
  {
    std::lock_guard lock(mu_);
    candidates = nodes_;
  }
  for (const Endpoint& seed : seeds_) {
    if (std::find(candidates.begin(), candidates.end(), seed) == candidates.end()) {
      candidates.push_back(seed);
    }
  }
  Status last = Unavailable("redis cluster: no node to read the slot map from");
  for (const Endpoint& candidate : candidates) {
    Expected<NodePool::Lease> conn = pool_.Acquire(candidate);
    if (!conn.ok()) {
      last = conn.status();
      continue;
    }
    Expected<Reply> reply = (*conn)->Command({"CLUSTER", "SLOTS"});
    if (!reply.ok()) {
      last = reply.status();
      continue;
    }
    if (reply->is_error() || reply->type != Reply::Type::kArray) {
      last = reply->is_error() ? ReplyError(candidate, *reply)
                               : Unavailable("redis cluster: malformed CLUSTER SLOTS reply");
      continue;
    }
    std::vector<Endpoint> nodes;
    std::array<std::int16_t, kSlotCount> slots;
    slots.fill(-1);
    bool malformed = false;
    for (const Reply& range : reply->elements) {
      // [start, end, [host, port, id, ...], replicas...]
      if (range.type != Reply::Type::kArray || range.elements.size() < 3 ||
          range.elements[0].type != Reply::Type::kInteger ||
          range.elements[1].type != Reply::Type::kInteger ||
          range.elements[2].type != Reply::Type::kArray || range.elements[2].elements.size() < 2 ||
          range.elements[2].elements[1].type != Reply::Type::kInteger) {
        malformed = true;
        break;
      }
      const long long start = range.elements[0].integer, end = range.elements[1].integer;
      if (start < 0 || end >= kSlotCount || start > end) {
        malformed = true;
        break;
      }
      const Reply& master = range.elements[2];
      Endpoint node;
      node.host = master.elements[0].str;
      // An unknown endpoint ("" or "?") is the node that answered.
      if (node.host.empty() || node.host == "?") node.host = candidate.host;
      node.port = static_cast<int>(master.elements[1].integer);
      auto it = std::find(nodes.begin(), nodes.end(), node);
      if (it == nodes.end()) it = nodes.insert(nodes.end(), node);
      for (long long s = start; s <= end; ++s) slots[s] = static_cast<std::int16_t>(it - nodes.begin());
    }
    if (malformed) {
      last = Unavailable("redis cluster: malformed CLUSTER SLOTS reply from " + candidate.ToString());
      continue;
    }
    ++refreshes_;
    std::lock_guard lock(mu_);
    nodes_ = std::move(nodes);
    slots_ = slots;
    stale_ = false;
    return Status::Ok();
  }
  return last;
}

void ClusterClient::AssignAllSlotsForTesting(const Endpoint& node) {
  std::lock_guard lock(mu_);
  nodes_ = {node};
  slots_.fill(0);
  stale_ = false;
}

ClusterClient::Counters ClusterClient::counters() const {
  return Counters{moved_.load(), ask_.load(), refreshes_.load()};
}

std::optional<Endpoint> ClusterClient::NodeFor(int slot) {
  {
    std::lock_guard lock(mu_);
    if (!stale_ && slots_[slot] >= 0) return nodes_[slots_[slot]];
  }
  // Stale or unknown: read the map again; with no answer, use what we knew.
  (void)RefreshSlots();
  std::lock_guard lock(mu_);
  if (slots_[slot] >= 0) return nodes_[slots_[slot]];
  return std::nullopt;
}

void ClusterClient::MarkStale() {
  std::lock_guard lock(mu_);
  stale_ = true;
}

}  // namespace qdcache::remote
