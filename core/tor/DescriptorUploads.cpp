// HS_DESC event parsing (control-spec 4.1.25: "HS_DESC Action HSAddress AuthType HsDir ...").
#include "DescriptorUploads.h"

namespace onionvoice::tor {

DescriptorUploads::DescriptorUploads(TorController* controller, QString address, QObject* parent)
    : QObject(parent)
    , address_(std::move(address)) {
    connect(controller, &TorController::eventReceived, this, &DescriptorUploads::onEvent);
}

void DescriptorUploads::reset() {
    launched_ = 0;
    uploaded_ = 0;
    failed_ = 0;
    awaited_.clear();
}

void DescriptorUploads::onEvent(const TorEvent& event) {
    if (event.type != "HS_DESC" || event.lines.isEmpty())
        return;
    const TorArguments args = parseTorArguments(event.lines.first().text);
    if (args.positional.size() < 5 || QString::fromLatin1(args.positional.at(2)) != address_)
        return;
    const QByteArray& action = args.positional.at(1);
    const QByteArray& hsDir = args.positional.at(4);
    if (action == "UPLOAD") {
        ++launched_;
        ++awaited_[hsDir];
        return;
    }
    if (action != "UPLOADED" && action != "FAILED")
        return;
    const auto it = awaited_.find(hsDir);
    if (it == awaited_.end())
        return; // an answer for an upload from before the reset
    if (--*it == 0)
        awaited_.erase(it);
    if (action == "FAILED")
        ++failed_;
    else if (++uploaded_ == 1)
        emit firstUploaded();
}

} // namespace onionvoice::tor
