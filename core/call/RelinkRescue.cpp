// When to purge tor's client-side onion-service state for a call (see RelinkRescue.h).
#include "RelinkRescue.h"

namespace onionvoice::call {

RelinkRescue::Failure RelinkRescue::classify(net::OnionLink::Failure failure, int socksReplyCode) {
    if (failure == net::OnionLink::Failure::ProxyUnreachable)
        return Failure::NoTor;
    constexpr int kDescriptorNotFound = 0xF0;
    constexpr int kIntroductionFailed = 0xF2;
    return socksReplyCode == kDescriptorNotFound || socksReplyCode == kIntroductionFailed
               ? Failure::ClientStateStuck
               : Failure::Other;
}

bool RelinkRescue::attemptFailed(std::uint8_t slot, Clock::time_point now, Failure failure,
                                 CallLinks links) {
    return links == CallLinks::Working && countFailure(slot, now, failure);
}

bool RelinkRescue::countFailure(std::uint8_t slot, Clock::time_point now, Failure failure) {
    if (slot >= failures_.size() || failure == Failure::NoTor)
        return false;
    ++failures_[slot];
    if (failure != Failure::ClientStateStuck && failures_[slot] < config_.failedAttempts)
        return false;
    if (lastRescue_ && now - *lastRescue_ < config_.minInterval)
        return false;
    lastRescue_ = now;
    failures_.fill(0);
    return true;
}

bool RelinkRescue::dialAttemptFailed(const QString& peer, std::uint8_t slot, Clock::time_point now,
                                     Failure failure) {
    const auto reached = reached_.find(peer);
    if (reached == reached_.end() || now - reached->second > config_.recentPeer)
        return false;
    return countFailure(slot, now, failure);
}

void RelinkRescue::peerReached(const QString& peer, Clock::time_point now) {
    std::erase_if(reached_,
                  [&](const auto& entry) { return now - entry.second > config_.recentPeer; });
    reached_[peer] = now;
}

void RelinkRescue::purgeWithdrawn() {
    lastRescue_.reset();
}

void RelinkRescue::linkUp(std::uint8_t slot) {
    if (slot < failures_.size())
        failures_[slot] = 0;
}

void RelinkRescue::startCall() {
    failures_.fill(0);
}

} // namespace onionvoice::call
