// libFuzzer target: a hostile peer's stream of records. The input is cut into (link, time step,
// record) pieces fed to one endpoint, which also keeps sending, so the monitor, the link groups,
// the delivery tracker and the policy all see whatever the peer makes up. Nothing may crash or
// hang.
#include "multipath/MultipathEndpoint.h"

#include <cstring>

using namespace onionvoice::multipath;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    MultipathEndpoint endpoint({}, makePolicy("adaptive"));
    for (LinkId l = 0; l < 12; ++l)
        endpoint.linkUp(l);
    Time now{};
    std::vector<ReceivedFrame> delivered;
    const Frame frame{0, std::vector<std::uint8_t>(160, 1)};
    RecordBytes record{};
    std::size_t pos = 0;
    while (pos + 2 <= size) {
        const LinkId link = data[pos] % kMaxLinks;
        now += Millis(data[pos + 1]);
        pos += 2;
        // Each piece overwrites the previous record from its start, so a short piece mutates only
        // its head: decoding succeeds often enough for the deeper code to be reached.
        const std::size_t take = std::min(record.size(), size - pos);
        std::memcpy(record.data(), data + pos, take);
        pos += take;
        delivered.clear();
        endpoint.receive(now, link, record, delivered);
        (void)endpoint.sendPacket(now, std::span(&frame, 1));
        if (data[pos - 1] & 1)
            endpoint.linkDown(link);
        else
            endpoint.linkUp(link);
    }
    return 0;
}
