// libFuzzer target: the record decoder must survive any byte string, and whatever it accepts must
// encode again to a record that decodes to the same content.
#include "multipath/Record.h"

#include <cstdlib>

using namespace onionvoice::multipath;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const DecodeResult decoded = decodeRecord({data, size});
    if (decoded.error != RecordError::None)
        return 0;
    RecordBytes again{};
    if (!encodeRecord(decoded.record, again))
        std::abort();
    const DecodeResult twice = decodeRecord(again);
    if (twice.error != RecordError::None || !(twice.record == decoded.record))
        std::abort();
    return 0;
}
