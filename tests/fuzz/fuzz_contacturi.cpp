// libFuzzer target: any text given as a contact link is accepted or refused with a reason, never a
// crash; an accepted link prints to a string that parses back to the same contact.
#include "contacts/ContactUri.h"

#include <cstdlib>

using namespace onionvoice::contacts;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const QString text = QString::fromUtf8(reinterpret_cast<const char*>(data), qsizetype(size));
    const ContactUriParse parsed = parseContactUri(text);
    if (!parsed.uri) {
        if (parsed.error.isEmpty())
            std::abort();
        return 0;
    }
    const ContactUriParse again = parseContactUri(parsed.uri->toString());
    if (!again.uri || again.uri->address != parsed.uri->address ||
        again.uri->displayName != parsed.uri->displayName ||
        again.uri->clientAuthKey != parsed.uri->clientAuthKey)
        std::abort();
    return 0;
}
