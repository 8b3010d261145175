#include "remote/cluster_client.h"

#include <algorithm>
#include <charconv>

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
  bool asking = false;
  for (int redirects = 0;; ++redirects) {
    Expected<NodePool::Lease> conn = pool_.Acquire(*node);
    if (!conn.ok()) {
      MarkStale();
      return conn.status();
    }
    Expected<Reply> reply = Reply{};
    // ASKING holds for the next command on this connection only.
    if (asking) reply = (*conn)->Command({"ASKING"});
    if (reply.ok() && !reply->is_error()) reply = (*conn)->Command(argv);
    if (!reply.ok()) {
      pool_.DropIdle(*node);
      MarkStale();
      return reply.status();
    }
    if (!reply->is_error()) return reply;
    Redirect redirect;
    if (!ParseRedirect(reply->str, *node, &redirect)) return ReplyError(*node, *reply);
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
    asking = !redirect.moved;
    node = redirect.node;
  }
}

Status ClusterClient::Ping() { return RefreshSlots(); }

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
