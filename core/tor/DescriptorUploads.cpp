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
}

void DescriptorUploads::onEvent(const TorEvent& event) {
    if (event.type != "HS_DESC" || event.lines.isEmpty())
        return;
    const TorArguments args = parseTorArguments(event.lines.first().text);
    if (args.positional.size() < 3 || QString::fromLatin1(args.positional.at(2)) != address_)
        return;
    const QByteArray& action = args.positional.at(1);
    if (action == "UPLOAD") {
        ++launched_;
    } else if (action == "UPLOADED") {
        if (++uploaded_ == 1)
            emit firstUploaded();
    } else if (action == "FAILED") {
        ++failed_;
    }
}

} // namespace onionvoice::tor
